import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { type Entry, readZip } from '../support/zip-reader.js';

// Issue 30, select many: GET /api/v1/downloads/zip (and /web/api's) streams the originals of a
// selection, named from their prompts, and a metadata.json.

interface Metadata {
  created_at: string;
  files: Array<{
    file: string;
    prompt: string | null;
    model: string | null;
    width: number;
    height: number;
    bytes: number;
    content_type: string;
    created_at: string;
    source: string;
    url: string;
    generation_id: string | null;
    asset_id: string;
  }>;
}

describe('ZIP downloads', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let cookie: string;
  let fox: string;
  let pair: string;
  let upload: { id: string; url: string };
  let otherWork: string;

  const call = (url: string, key = apiKey) => t.app.inject({ method: 'GET', url, headers: bearer(key) });

  const makeWork = async (key: string, prompt: string, count = 1) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(key),
      payload: { prompt, count },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    for (const id of (answer.json() as { task_ids: string[] }).task_ids) await pollUntilFinal(t.app, key, id);
    return ((await call('/api/v1/history?limit=1', key)).json() as { items: Array<{ id: string }> }).items[0]
      ?.id as string;
  };

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
    const account = await t.createAccount(undefined, { password: 'correct horse battery' });
    apiKey = account.apiKey;
    cookie = await signedInCookie(t.app, { email: account.email, password: 'correct horse battery' });
    otherKey = (await t.createAccount()).apiKey;
    fox = await makeWork(apiKey, 'A Red Fox, sleeping — in the snow!');
    // Same prompt twice: its names must still be unique.
    pair = await makeWork(apiKey, 'a red fox sleeping in the snow', 2);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(40, 30),
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const assets = (await call('/api/v1/assets?kind=upload')).json() as {
      items: Array<{ id: string; url: string }>;
    };
    upload = assets.items[0] as { id: string; url: string };
    otherWork = await makeWork(otherKey, 'not yours');
  });
  after(() => t?.close());

  test('happy: the originals, named from their prompts (unique, with extension), then metadata.json; streamed', async () => {
    const answer = await call(`/api/v1/downloads/zip?works=${fox},${pair}&assets=${upload.id}`);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.headers['content-type'], 'application/zip');
    assert.match(
      String(answer.headers['content-disposition']),
      /^attachment; filename="atelier-\d{4}-\d\d-\d\d-4-files\.zip"$/,
    );
    // Sent as it is written: no length known up front.
    assert.equal(answer.headers['content-length'], undefined);
    const entries = await readZip(answer.rawPayload);
    assert.deepEqual(
      entries.map((entry) => entry.name),
      [
        'a-red-fox-sleeping-in-the-snow.png',
        'a-red-fox-sleeping-in-the-snow-2.png',
        'a-red-fox-sleeping-in-the-snow-3.png',
        'upload.png',
        'metadata.json',
      ],
    );
    // Stored as they are (images are compressed already).
    assert.ok(entries.slice(0, 4).every((entry) => entry.compressionMethod === 0));
    const metadata = JSON.parse(entries.at(-1)?.data.toString('utf8') ?? '') as Metadata;
    assert.equal(metadata.files.length, 4);
    for (const [index, file] of metadata.files.entries()) {
      const entry = entries[index] as Entry;
      assert.equal(file.file, entry.name);
      assert.equal(file.bytes, entry.data.length);
      // The entry is byte for byte the file at its URL.
      const served = await t.app.inject({ method: 'GET', url: new URL(file.url).pathname });
      assert.ok(served.rawPayload.equals(entry.data), file.file);
      assert.match(file.created_at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(file.content_type, 'image/png');
      assert.ok(file.width > 0 && file.height > 0);
    }
    assert.deepEqual(
      metadata.files.map((file) => [file.prompt, file.source, file.generation_id]),
      [
        ['A Red Fox, sleeping — in the snow!', 'api', fox],
        ['a red fox sleeping in the snow', 'api', pair],
        ['a red fox sleeping in the snow', 'api', pair],
        [null, 'upload', null],
      ],
    );
    assert.equal(metadata.files[0]?.model, metadata.files[1]?.model);
    assert.equal(metadata.files[3]?.model, null);
    assert.deepEqual([metadata.files[3]?.width, metadata.files[3]?.height], [40, 30]);
  });

  test('the website: the same ZIP through /web/api with the session', async () => {
    const answer = await t.app.inject({
      method: 'GET',
      url: `/web/api/downloads/zip?works=${fox}`,
      headers: { cookie },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const entries = await readZip(answer.rawPayload);
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['a-red-fox-sleeping-in-the-snow.png', 'metadata.json'],
    );
    assertError(
      await t.app.inject({ method: 'GET', url: `/web/api/downloads/zip?works=${fox}` }),
      401,
      'unauthorized',
    );
  });

  test('errors: nothing named, too many ids, an unknown id, no key', async () => {
    assertError(await call('/api/v1/downloads/zip'), 400, 'invalid_request');
    assertError(await call('/api/v1/downloads/zip?works=,'), 400, 'invalid_request');
    const many = Array.from({ length: 201 }, (_, i) => `gen_${i}`).join(',');
    assertError(await call(`/api/v1/downloads/zip?works=${many}`), 400, 'invalid_request');
    const unknown = assertError(await call(`/api/v1/downloads/zip?works=${fox},gen_nope`), 404, 'not_found');
    assert.match(unknown, /gen_nope/);
    assertError(await call('/api/v1/downloads/zip?assets=ast_nope'), 404, 'not_found');
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/downloads/zip?works=${fox}` }),
      401,
      'unauthorized',
    );
  });

  test("security: another account's work or asset is a 404 like a missing one; a deleted work too", async () => {
    const foreign = assertError(await call(`/api/v1/downloads/zip?works=${otherWork}`), 404, 'not_found');
    assert.equal(foreign, `No such work: ${otherWork}`);
    assertError(await call(`/api/v1/downloads/zip?assets=${upload.id}`, otherKey), 404, 'not_found');
    assertError(await call(`/api/v1/downloads/zip?works=${fox}`, otherKey), 404, 'not_found');
    const deleted = await makeWork(apiKey, 'soon gone');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/works/${deleted}`,
      headers: { cookie, origin: 'http://127.0.0.1:8080' },
    });
    assert.equal(removed.statusCode, 204);
    assertError(await call(`/api/v1/downloads/zip?works=${deleted}`), 404, 'not_found');
  });
});
