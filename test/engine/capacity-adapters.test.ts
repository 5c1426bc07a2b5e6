import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGeminiProvider } from '../../src/capabilities/providers/gemini-provider.js';
import { createReplicateProvider } from '../../src/capabilities/providers/replicate-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { startFakeReplicate } from '../fakes/providers/fake-replicate.js';
import { createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import {
  allEnded,
  assertLimitLearned,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// The other adapters' rate-limit shapes: Gemini's 429 RESOURCE_EXHAUSTED with a RetryInfo delay,
// Replicate's throttled 429 with Retry-After. A burst past the limit: every task completes, no
// attempt is spent, the upstream's count stays within its limit, and its capacity is kept busy.

test('Gemini past a concurrent limit nobody configured (RESOURCE_EXHAUSTED): learned, then every task completes with few refusals', async (t) => {
  const limit = createUpstreamLimit({ maxInFlight: 3, latencyMs: 400, retryAfterMs: 100 });
  const fake = await startFakeGemini({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('gemini', 'gemini-3.1-flash-image', undefined);
  let core: Core | undefined;
  try {
    core = await createCore(config, capacityOverrides(createGeminiProvider({ baseUrl: fake.baseUrl })));
    await assertLimitLearned(t, core, limit, { first: 8, second: 36, maxInFlight: 3 });
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});

test('Replicate past a per-minute limit on creates (throttled 429): every task completes, the window is kept full', async (t) => {
  const windowMs = 6000;
  const limit = createUpstreamLimit({ perWindow: 16, windowMs });
  const fake = await startFakeReplicate({
    token: UPSTREAM_KEY,
    limit,
    models: [
      { name: 'google/nano-banana-2', version: 'f'.repeat(64), inputs: { prompt: { type: 'string' } } },
    ],
  });
  const config = await capacityConfig(
    'replicate',
    'google/nano-banana-2',
    { requestsPerMinute: 16 },
    { ATELIER_UPLOAD_ALLOWED_HOSTS: new URL(fake.baseUrl).host },
  );
  let core: Core | undefined;
  try {
    const provider = createReplicateProvider({ baseUrl: fake.baseUrl });
    core = await createCore(config, capacityOverrides(provider, { windowMs }));
    core.engine.start();
    const { accountId, taskIds } = await submitBurst(core, 'replicate', 48);
    const rows = await allEnded([core], accountId, taskIds);
    const first = limit.stats.acceptedAt[0] ?? 0;
    const span = (limit.stats.acceptedAt.at(-1) ?? first) - first;
    const pace = limit.stats.accepted / ((span / windowMs + 1) * 16);
    t.diagnostic(
      `refused ${limit.stats.refused}, busiest window ${limit.busiestWindow()}, pace ${pace.toFixed(2)}`,
    );
    assert.deepEqual(notCompleted(rows), []);
    assert.ok(rows.every((row) => row.attempts === 0));
    assert.ok(limit.stats.refused < 0.15 * rows.length);
    assert.ok(pace >= 0.75, `pace ${pace}`);
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});
