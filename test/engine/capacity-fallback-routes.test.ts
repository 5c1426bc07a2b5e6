import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createGeminiProvider } from '../../src/capabilities/providers/gemini-provider.js';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { type Core, createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import { freePort } from '../support/test-server.js';
import { allEnded, notCompleted, submitBurst, UPSTREAM_KEY } from './capacity-fixtures.js';

// Capacity per route (issue 27): a model's fallback route has its own pool, with the limits written
// on that route in the catalog (a fallback's calls never borrow the model's own route's limits, and
// are never left without the fallback's), counted by the loopback upstream.

function registry(providers: ImageProvider[], keys: Record<string, string>): ProviderRegistry {
  return {
    get: (name) => providers.find((provider) => provider.name === name),
    names: () => providers.map((provider) => provider.name),
    deploymentKeys: keys,
  };
}

test("a fallback route's calls keep that route's own limit, set on the fallback in the catalog", async (t) => {
  // The model's own route (OpenAI) is down: every task moves to Gemini, which takes 2 calls at once.
  const limit = createUpstreamLimit({ maxInFlight: 2, latencyMs: 300, retryAfterMs: 100 });
  const gemini = await startFakeGemini({ apiKey: UPSTREAM_KEY, limit });
  const dataEnv = await freshTestDataEnv('capacity-routes-');
  const catalogPath = join(dataEnv.ATELIER_DATA_DIR ?? '.', 'catalog.json');
  const model = {
    id: 'base-image-2',
    provider: 'openai',
    upstreamModel: 'gpt-image-1.5',
    modes: ['text'],
    capacity: { maxInFlight: 16 },
    fallbacks: [
      { provider: 'gemini', upstreamModel: 'gemini-3.1-flash-image', capacity: { maxInFlight: 2 } },
    ],
  };
  await writeFile(catalogPath, JSON.stringify({ models: [model] }));
  const config = loadConfig({
    ...dataEnv,
    ATELIER_CATALOG: catalogPath,
    ATELIER_DEMO_ACCOUNT: 'false',
    LOG_LEVEL: 'silent',
  });
  let core: Core | undefined;
  try {
    const providers = [
      createOpenAIProvider({ baseUrl: `http://127.0.0.1:${await freePort()}` }),
      createGeminiProvider({ baseUrl: gemini.baseUrl }),
    ];
    core = await createCore(config, {
      idlePollMs: 200,
      providers: registry(providers, { openai: UPSTREAM_KEY, gemini: UPSTREAM_KEY }),
    });
    const { accountId, taskIds } = await submitBurst(core, 'fallback', 12);
    core.engine.start();
    const rows = await allEnded([core], accountId, taskIds);
    t.diagnostic(`Gemini: ${limit.stats.accepted} accepted, ${limit.stats.refused} refused`);
    assert.deepEqual(notCompleted(rows), []);
    assert.ok(rows.every((row) => row.provider === 'gemini'));
    // Counted by the upstream: never past the fallback's limit, so never refused.
    assert.ok(limit.stats.maxInFlight <= 2, `${limit.stats.maxInFlight} calls at once on the fallback`);
    assert.equal(limit.stats.refused, 0);
  } finally {
    await core?.close(500);
    await gemini.close();
    await removeTestData(config);
  }
});
