import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FakeGemini, startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { bearer, makePng, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const KEY = 'AIzaRealUpstreams-0123456789abcdefgh';

// The shipped Gemini catalog against the loopback Gemini (which knows only today's models), plus a
// model that was shut down: what a person following the README with a real key would see.
describe('real upstream models: edits keep the reference shape; a gone model fails naming its replacement', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  let origin: Server;
  let referenceUrl: string;
  let apiKey: string;

  before(async () => {
    gemini = await startFakeGemini({ apiKey: KEY });
    const png = await makePng(300, 200);
    origin = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(png);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    referenceUrl = `http://127.0.0.1:${port}/wide.png`;
    const shipped = JSON.parse(
      await import('node:fs/promises').then((fs) =>
        fs.readFile(new URL('../../catalogs/gemini.json', import.meta.url), 'utf8'),
      ),
    ) as { models: Array<Record<string, unknown>> };
    const catalogPath = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
    writeFileSync(
      catalogPath,
      JSON.stringify({
        models: [
          ...shipped.models,
          {
            id: 'old-pro',
            provider: 'gemini',
            upstreamModel: 'gemini-3-pro-image-preview',
            modes: ['text'],
            sizes: ['1K'],
            lifecycle: { shutdown: '2026-06-25', replacement: 'gemini-3-pro-image' },
          },
        ],
      }),
    );
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalogPath,
        ATELIER_GEMINI_API_KEY: KEY,
        ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port}`,
        ATELIER_METRICS_TOKEN: 'metrics-token-0123456789',
      },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await gemini?.close();
    await new Promise((resolve) => origin?.close(resolve));
  });

  const generate = async (payload: Record<string, unknown>) => {
    const [taskId] = await submitGenerate(t.app, apiKey, payload);
    return (await pollUntilFinal(t.app, apiKey, String(taskId), 60_000)).final;
  };

  test('an edit without aspect sends no aspectRatio and is recorded with the reference ratio', async () => {
    const final = await generate({
      prompt: 'at night',
      model: 'pro',
      mode: 'edit',
      imageUrls: [referenceUrl],
    });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    assert.deepEqual(gemini.calls.at(-1)?.body.generationConfig.imageConfig, { imageSize: '2K' });
    const history = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(history.json().items[0].aspect, '3:2');
  });

  test('an edit that names its aspect sends it; a text request keeps the 1:1 default', async () => {
    await generate({ prompt: 'wide', model: 'pro', mode: 'edit', aspect: '16:9', imageUrls: [referenceUrl] });
    assert.deepEqual(gemini.calls.at(-1)?.body.generationConfig.imageConfig, {
      aspectRatio: '16:9',
      imageSize: '2K',
    });
    await generate({ prompt: 'square' });
    assert.equal(gemini.calls.at(-1)?.body.generationConfig.imageConfig?.aspectRatio, '1:1');
  });

  test('a shut-down model fails with a message naming it and its replacement, and is counted', async () => {
    const final = await generate({ prompt: 'old', model: 'old-pro', imageSize: '1K' });
    assert.equal(final.status, 'failed');
    assert.equal(
      final.error,
      'Gemini: model gemini-3-pro-image-preview not found upstream (HTTP 404 NOT_FOUND); its replacement is gemini-3-pro-image: point the catalog entry at it (see bin/atelier catalog check)',
    );
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    });
    assert.match(
      metrics.body,
      /^atelier_tasks_failed_model_missing_total\{provider="gemini",upstream_model="gemini-3-pro-image-preview"\} 1$/m,
    );
  });
});
