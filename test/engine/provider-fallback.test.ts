import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, freePort, type TestApp } from '../support/test-server.js';

// A model served by OpenAI first and Gemini second; OpenAI is down (nothing listens on its port).
// Every task must complete on Gemini, each submitted there once, and say so in its record.
let t: TestApp;
let gemini: Awaited<ReturnType<typeof startFakeGemini>>;

before(async () => {
  gemini = await startFakeGemini({ apiKey: 'gemini-key' });
  const catalogPath = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
  writeFileSync(
    catalogPath,
    JSON.stringify({
      models: [
        {
          id: 'base-image-2',
          provider: 'openai',
          upstreamModel: 'gpt-image-2.5-flare',
          modes: ['text'],
          aspects: ['1:1'],
          sizes: ['1K'],
          fallbacks: [{ provider: 'gemini', upstreamModel: 'gemini-3.1-flash-image' }],
        },
      ],
    }),
  );
  t = await createTestApp({
    env: {
      ATELIER_CATALOG: catalogPath,
      ATELIER_OPENAI_API_KEY: 'openai-key',
      ATELIER_OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      ATELIER_GEMINI_API_KEY: 'gemini-key',
      ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
      ATELIER_METRICS_TOKEN: 'metrics-token-0123456789',
    },
  });
});
after(async () => {
  await t?.close();
  await gemini?.close();
});

test('with the first upstream down, every task completes on the next route, submitted there once', async () => {
  const { apiKey } = await t.createAccount();
  const taskIds: string[] = [];
  // Eight tasks: the first failures open OpenAI's circuit, and the fail-fasts fall back too.
  for (let i = 0; i < 2; i++) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: `a harbour at noon ${i}`, count: 4 },
    });
    assert.equal(response.statusCode, 200, response.body);
    taskIds.push(...(response.json().task_ids as string[]));
  }
  const finals = await Promise.all(
    taskIds.map(async (id) => (await pollUntilFinal(t.app, apiKey, id, 60_000)).final),
  );
  for (const record of finals) {
    assert.equal(record.status, 'completed', JSON.stringify(record));
    assert.equal((record as { provider?: string }).provider, 'gemini');
  }
  assert.equal(gemini.calls.length, taskIds.length, 'one Gemini call per task');
  const metrics = (
    await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-0123456789' },
    })
  ).body;
  assert.match(metrics, /^atelier_upstream_fallbacks_total\{from="openai",to="gemini"\} 8$/m);
  // The operator's task log keeps each task's move, from where to where (issue 43).
  for (const id of taskIds) {
    const life = await t.core.taskLog.life(id);
    assert.equal(life?.task.fallbacks, 1);
    assert.equal(life?.task.route, 'gemini/gemini-3.1-flash-image');
    assert.deepEqual(
      life?.fallbacks.map((move) => [move.from, move.to]),
      [['openai/gpt-image-2.5-flare', 'gemini/gemini-3.1-flash-image']],
    );
  }
});
