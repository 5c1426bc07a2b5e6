import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { readZip } from '../support/zip-reader.js';

// Issue 37, item 12: a ZIP's metadata.json said prompt, model and size but not the mode, aspect,
// requested size or references, so an archive could not make its works again. Each result now
// carries what its request asked; sending those fields back to /api/v1/generate makes the same work.

interface FileMetadata {
  file: string;
  prompt: string | null;
  model: string | null;
  mode: string | null;
  aspect: string | null;
  aspect_from_reference: boolean | null;
  image_size: string | null;
  image_count: number | null;
  references: string[] | null;
  generation_id: string | null;
  source: string;
}

interface HistoryItem {
  id: string;
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  imageCount: number;
  refs: string[];
}

describe('ZIP metadata.json: each work can be made again from it', () => {
  let t: TestApp;
  let apiKey: string;
  let reference = '';
  const works: string[] = [];

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: bearer(apiKey), ...(payload ? { payload } : {}) });
  /** Generates, waits for every task, and answers the new work's history item. */
  const make = async (body: Record<string, unknown>): Promise<HistoryItem> => {
    const answer = await call('POST', '/api/v1/generate', body);
    assert.equal(answer.statusCode, 200, answer.body);
    for (const id of (answer.json() as { task_ids: string[] }).task_ids) {
      const { final } = await pollUntilFinal(t.app, apiKey, id);
      assert.equal(final.status, 'completed', JSON.stringify(final));
    }
    const history = (await call('GET', '/api/v1/history?limit=1')).json() as { items: HistoryItem[] };
    return history.items[0] as HistoryItem;
  };
  const metadataOf = async (query: string): Promise<FileMetadata[]> => {
    const answer = await call('GET', `/api/v1/downloads/zip?${query}`);
    assert.equal(answer.statusCode, 200, answer.body);
    const entries = await readZip(answer.rawPayload);
    const json = entries.find((entry) => entry.name === 'metadata.json');
    return (JSON.parse(json?.data.toString('utf8') ?? '{}') as { files: FileMetadata[] }).files;
  };

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '10' } });
    apiKey = (await t.createAccount()).apiKey;
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(90, 60),
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    reference = (uploaded.json() as { url: string }).url;
  });
  after(() => t?.close());

  test('text at 9:16 and 2K, two images; an edit at 4:3 with a reference; an edit keeping the reference shape', async () => {
    works.push((await make({ prompt: 'a tall tower in fog', aspect: '9:16', imageSize: '2K', count: 2 })).id);
    works.push(
      (
        await make({
          prompt: 'the tower repainted',
          mode: 'edit',
          aspect: '4:3',
          imageSize: '1K',
          imageUrls: [reference],
        })
      ).id,
    );
    works.push((await make({ prompt: 'same shape as the photo', mode: 'edit', imageUrls: [reference] })).id);
  });

  test('metadata.json names mode, aspect, requested size, count and references for every result; null for an upload', async () => {
    const uploads = (await call('GET', '/api/v1/assets?kind=upload')).json() as {
      items: Array<{ id: string }>;
    };
    const files = await metadataOf(`works=${works.join(',')}&assets=${uploads.items[0]?.id}`);
    assert.deepEqual(
      files.map((f) => [
        f.prompt,
        f.mode,
        f.aspect,
        f.aspect_from_reference,
        f.image_size,
        f.image_count,
        f.references,
      ]),
      [
        ['a tall tower in fog', 'text', '9:16', false, '2K', 2, []],
        ['a tall tower in fog', 'text', '9:16', false, '2K', 2, []],
        ['the tower repainted', 'edit', '4:3', false, '1K', 1, [reference]],
        ['same shape as the photo', 'edit', files[3]?.aspect, true, '2K', 1, [reference]], // 2K: the default
        [null, null, null, null, null, null, null],
      ],
    );
    assert.match(files[3]?.aspect ?? '', /^\d+:\d+$/, 'the nearest ratio is still said');
  });

  test('each work made again from its metadata alone has the same settings', async () => {
    const files = await metadataOf(`works=${works.join(',')}`);
    const firstOfEach = works.map((id) => files.find((f) => f.generation_id === id) as FileMetadata);
    for (const meta of firstOfEach) {
      const again = await make({
        prompt: meta.prompt,
        model: meta.model,
        mode: meta.mode,
        ...(meta.aspect_from_reference ? {} : { aspect: meta.aspect }),
        imageSize: meta.image_size,
        count: meta.image_count,
        imageUrls: meta.references,
      });
      const original = (await call('GET', `/api/v1/history?limit=50`)).json() as { items: HistoryItem[] };
      const was = original.items.find((item) => item.id === meta.generation_id) as HistoryItem;
      const settings = (item: HistoryItem) => [
        item.prompt,
        item.model,
        item.mode,
        item.aspect,
        item.imageSize,
        item.imageCount,
        item.refs,
      ];
      assert.deepEqual(settings(again), settings(was), meta.prompt ?? '');
    }
  });
});
