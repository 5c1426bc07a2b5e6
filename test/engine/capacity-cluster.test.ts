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
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// Two worker nodes on one database (the PostgreSQL run: one PostgreSQL database; the SQLite run:
// one file), each with its own connections and its own adapter, against one upstream that counts.

async function twoWorkers(
  limitOptions: UpstreamLimitOptions,
  capacity: CapacityLimits,
  images: number,
  beforeStart?: (fake: Awaited<ReturnType<typeof startFakeOpenAI>>) => void,
) {
  const limit = createUpstreamLimit(limitOptions);
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', capacity);
  const cores: Core[] = [];
  try {
    for (let i = 0; i < 2; i++)
      cores.push(
        await createCore(config, capacityOverrides(createOpenAIProvider({ baseUrl: fake.baseUrl }))),
      );
    const [api] = cores;
    if (!api) throw new Error('no core');
    const { accountId, taskIds } = await submitBurst(api, 'pair', images);
    beforeStart?.(fake);
    for (const core of cores) core.engine.start();
    const rows = await allEnded(cores, accountId, taskIds);
    return { rows, limit, fake };
  } finally {
    for (const core of cores) await core.close(500);
    await fake.close();
    await removeTestData(config);
  }
}

test('two workers on one database never exceed a configured limit (counted by the upstream), and share it fully', async (t) => {
  const { rows, limit } = await twoWorkers({ maxInFlight: 3, latencyMs: 300 }, { maxInFlight: 3 }, 40);
  t.diagnostic(`most in flight ${limit.stats.maxInFlight}, refused ${limit.stats.refused}`);
  assert.deepEqual(notCompleted(rows), []);
  assert.ok(limit.stats.maxInFlight <= 3, `${limit.stats.maxInFlight} calls in flight at once`);
  assert.equal(limit.stats.refused, 0);
  assert.equal(limit.stats.maxInFlight, 3, 'the two workers together used the whole limit');
});

test('a Retry-After seen by one worker holds the other: no call leaves before it ends', async (t) => {
  const retryAfterMs = 1500;
  const { rows, limit } = await twoWorkers({ latencyMs: 50 }, { maxInFlight: 1 }, 8, (fake) =>
    fake.script({
      kind: 'error',
      status: 429,
      headers: { 'retry-after-ms': String(retryAfterMs) },
      json: {
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    }),
  );
  const [refusedAt, next] = limit.stats.acceptedAt;
  t.diagnostic(`next call ${(next ?? 0) - (refusedAt ?? 0)} ms after the refused one`);
  assert.deepEqual(notCompleted(rows), []);
  assert.ok(rows.every((row) => row.attempts === 0));
  // One call at a time (the configured limit), so the refused call was the only one in flight: every
  // later call, whichever worker made it, left after the hold.
  assert.ok((next ?? 0) >= (refusedAt ?? 0) + retryAfterMs, 'the next call waited for the Retry-After');
});
