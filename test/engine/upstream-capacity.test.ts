import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import type { CapacityLimits } from '../../src/capabilities/tasks/capacity/capacity-pool.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit, type UpstreamLimitOptions } from '../fakes/providers/upstream-limit.js';
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

// Bursts past an OpenAI stand-in's own rate limit (429 rate_limit_exceeded with Retry-After, as
// OpenAI answers): no task fails, the upstream's limit is respected, and its capacity is kept busy.
// Pace is measured by the upstream's own count (mean calls in flight over its busy span, or calls
// per window), never by a test's clock window.

async function runBurst(
  limitOptions: UpstreamLimitOptions,
  capacity: CapacityLimits | undefined,
  images: number,
  windowMs?: number,
) {
  const limit = createUpstreamLimit(limitOptions);
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', capacity);
  let core: Core | undefined;
  try {
    const provider = createOpenAIProvider({ baseUrl: fake.baseUrl });
    core = await createCore(config, capacityOverrides(provider, windowMs ? { windowMs } : {}));
    const { accountId, taskIds } = await submitBurst(core, 'burst', images);
    core.engine.start();
    const rows = await allEnded([core], accountId, taskIds);
    return { rows, limit };
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
}

test('past a concurrent limit set in the catalog: every task completes, no call is refused, the slots stay busy', async (t) => {
  const { rows, limit } = await runBurst({ maxInFlight: 4, latencyMs: 1000 }, { maxInFlight: 4 }, 32);
  t.diagnostic(`refused ${limit.stats.refused}, mean in flight ${limit.meanInFlight().toFixed(2)} of 4`);
  assert.deepEqual(notCompleted(rows), []);
  assert.ok(limit.stats.refused < 0.15 * rows.length, `${limit.stats.refused} refused calls`);
  assert.ok(limit.stats.maxInFlight <= 4);
  assert.ok(limit.meanInFlight() >= 0.75 * 4, `pace ${limit.meanInFlight()} of 4 calls in flight`);
});

test('past a concurrent limit nobody configured: the limit is learned, then every task completes with few refusals and no attempt spent', async (t) => {
  const limit = createUpstreamLimit({ maxInFlight: 4, latencyMs: 500, retryAfterMs: 100 });
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  let core: Core | undefined;
  try {
    core = await createCore(config, capacityOverrides(createOpenAIProvider({ baseUrl: fake.baseUrl })));
    await assertLimitLearned(t, core, limit, { first: 12, second: 60, maxInFlight: 4 });
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});

test('past a per-minute limit set in the catalog: every task completes, the window is never overrun, the pace reaches the limit', async (t) => {
  const windowMs = 6000;
  const { rows, limit } = await runBurst(
    { perWindow: 16, windowMs, latencyMs: 20 },
    { requestsPerMinute: 16 },
    48,
    windowMs,
  );
  const first = limit.stats.acceptedAt[0] ?? 0;
  const span = (limit.stats.acceptedAt.at(-1) ?? first) - first;
  // Ideal: 16 calls at the start of each window, 48 calls in 3 windows.
  const pace = limit.stats.accepted / ((span / windowMs + 1) * 16);
  t.diagnostic(
    `refused ${limit.stats.refused}, busiest window ${limit.busiestWindow()}, pace ${pace.toFixed(2)}`,
  );
  assert.deepEqual(notCompleted(rows), []);
  assert.ok(limit.stats.refused < 0.15 * rows.length, `${limit.stats.refused} refused calls`);
  assert.ok(pace >= 0.75, `pace ${pace}`);
});
