import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Core, createCore } from '../../src/core.js';
import { createOpenAIProvider } from '../../src/providers/openai-provider.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit, type UpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import {
  allEnded,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// Issue 39's three scenarios, one after the other on ONE app (as a deployment lives through them),
// against a loopback OpenAI Images upstream whose limits change under it. Times are scaled by
// SCALE (the capacity window, the upstream's window and every latency together; the ratios are the
// issue's): 160 tasks against 4 calls in flight of 1 s; 60 tasks against 120 calls per minute with
// OpenAI's x-ratelimit-* headers on every answer (enforced as OpenAI quantizes it: a bucket of 2 s
// of refill); then 1,000 five-second tasks with no limit, which must climb far past the limit the
// first scenario taught. Pace and width are the upstream's own counts.
const SCALE = 0.5;
const WINDOW_MS = 60_000 * SCALE;

/** Most calls the upstream had in flight at once among its accepted calls from index `from` on. */
function widestSince(limit: UpstreamLimit, from: number, endsFrom: number): number {
  const events = [
    ...limit.stats.acceptedAt.slice(from).map((at) => ({ at, d: 1 })),
    ...limit.stats.endedAt.slice(endsFrom).map((at) => ({ at, d: -1 })),
  ].sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const { d } of events) {
    now += d;
    most = Math.max(most, now);
  }
  return most;
}

/** One scenario: a burst from a new account, until every task ended; the upstream's counts for it. */
async function scenario(core: Core, limit: UpstreamLimit, label: string, images: number) {
  const before = {
    ...limit.stats,
    accepted: limit.stats.acceptedAt.length,
    ended: limit.stats.endedAt.length,
  };
  const { accountId, taskIds } = await submitBurst(core, label, images);
  const rows = await allEnded([core], accountId, taskIds);
  const first = limit.stats.acceptedAt[before.accepted] ?? 0;
  const last = Math.max(...limit.stats.endedAt.slice(before.ended));
  return {
    rows,
    refused: limit.stats.refused - before.refused,
    refusedOnTime: limit.stats.refusedOnTime - before.refusedOnTime,
    seconds: (last - first) / 1000,
    widest: widestSince(limit, before.accepted, before.ended),
  };
}

test('one app through a concurrency limit, a per-minute limit read from headers, then no limit: few refusals, and full width again', {
  timeout: 400_000,
}, async (t) => {
  const limit = createUpstreamLimit({ maxInFlight: 4, latencyMs: 1000 * SCALE });
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  let core: Core | undefined;
  try {
    const provider = createOpenAIProvider({ baseUrl: fake.baseUrl });
    core = await createCore(config, capacityOverrides(provider, { windowMs: WINDOW_MS }));
    core.engine.start();

    const calls = await scenario(core, limit, 'in-flight', 160);
    t.diagnostic(
      `4 in flight: ${calls.refused} refused for 160 tasks, ${calls.seconds.toFixed(1)} s (ideal ${(40 * SCALE).toFixed(0)})`,
    );
    assert.deepEqual(notCompleted(calls.rows), []);
    assert.ok(calls.rows.every((row) => row.attempts === 0));
    assert.ok(calls.refused <= 0.15 * 160, `${calls.refused} refused calls against 4 in flight`);

    // 120 per minute, a bucket of 2 s of refill (4 requests), stated in every answer's headers.
    limit.set({ requestsPerWindow: 120, burst: 4, windowMs: WINDOW_MS, latencyMs: 1000 * SCALE });
    const perMinute = await scenario(core, limit, 'per-minute', 60);
    const ideal = ((60 - 4) / 120) * (WINDOW_MS / 1000);
    t.diagnostic(
      `120/min: ${perMinute.refused} refused for 60 tasks, ${perMinute.seconds.toFixed(1)} s (ideal ${ideal.toFixed(1)})`,
    );
    assert.deepEqual(notCompleted(perMinute.rows), []);
    assert.ok(perMinute.refused <= 0.05 * 60, `${perMinute.refused} refused calls against 120 per minute`);

    limit.set({ latencyMs: 5000 * SCALE });
    const wide = await scenario(core, limit, 'wide', 1000);
    t.diagnostic(
      `no limit: 1,000 tasks in ${wide.seconds.toFixed(1)} s (bound ${25 * SCALE}), ${wide.widest} in flight at most, ${wide.refused} refused`,
    );
    assert.deepEqual(notCompleted(wide.rows), []);
    assert.equal(wide.refused, 0);
    // The old low limit (4 calls at once) was forgotten and the pool climbed far past it (before
    // issue 39 it stayed at 1 for hours). The 25 s for this run is measured, not asserted
    // (see docs/benchmarks.md, Q6–Q7): on a loaded machine the ramp's steps wait on the store.
    assert.ok(wide.widest >= 100, `${wide.widest} calls in flight at most: the old limit held`);
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});
