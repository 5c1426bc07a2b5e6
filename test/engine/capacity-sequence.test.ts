import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { callsHeld, createUpstreamLimit, type UpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import {
  countedProvider,
  openCountedDatabase,
  startVirtualTime,
  type VirtualTime,
} from '../support/virtual-time.js';
import {
  allEnded,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// Issue 39's three scenarios, one after the other on ONE app (as a deployment lives through them),
// against a loopback OpenAI Images upstream whose limits change under it, at the issue's own
// numbers: 160 tasks against 4 calls in flight of 1 s; 60 tasks against 120 calls per minute with
// OpenAI's x-ratelimit-* headers on every answer (enforced as OpenAI quantizes it: a bucket of 2 s
// of refill); then 1,000 five-second tasks with no limit, which must climb far past the limit the
// first scenario taught and end within 25 s. Time is virtual (test/support/virtual-time.ts): the
// engine and the upstream share a mocked clock that moves only while no statement, call or write is
// under way, so the seconds measured are the engine's own decisions, the same on a loaded machine
// and on both stores. Pace and width are the upstream's own counts.
const WINDOW_MS = 60_000;

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
async function scenario(core: Core, time: VirtualTime, limit: UpstreamLimit, label: string, images: number) {
  const submittedAt = Date.now();
  const before = {
    ...limit.stats,
    accepted: limit.stats.acceptedAt.length,
    ended: limit.stats.endedAt.length,
  };
  // The burst arrives at one instant (its submission takes no virtual time).
  const { accountId, taskIds } = await time.still(() => submitBurst(core, label, images));
  const rows = await allEnded([core], accountId, taskIds);
  const first = limit.stats.acceptedAt[before.accepted] ?? 0;
  const last = Math.max(...limit.stats.endedAt.slice(before.ended));
  return {
    rows,
    refused: limit.stats.refused - before.refused,
    refusedOnTime: limit.stats.refusedOnTime - before.refusedOnTime,
    seconds: (last - first) / 1000,
    /** From the burst's arrival to the end of its last call. */
    total: (last - submittedAt) / 1000,
    widest: widestSince(limit, before.accepted, before.ended),
  };
}

test('one app through a concurrency limit, a per-minute limit read from headers, then no limit: few refusals, and full width again within 25 s', {
  timeout: 900_000,
}, async (t) => {
  const limit = createUpstreamLimit({ maxInFlight: 4, latencyMs: 1000 });
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  const store = await openCountedDatabase(config.databaseUrl);
  const calls = countedProvider(
    // Its clock read at each answer (the mocked one), not the real one it would keep from now.
    createOpenAIProvider({ baseUrl: fake.baseUrl, now: () => Date.now() }),
    callsHeld,
  );
  const time = startVirtualTime([store.busy, calls.busy]);
  let core: Core | undefined;
  try {
    core = await createCore(config, {
      ...capacityOverrides(calls.provider, { windowMs: WINDOW_MS }),
      db: store.db,
    });
    core.engine.start();

    const inFlight = await scenario(core, time, limit, 'in-flight', 160);
    t.diagnostic(
      `4 in flight: ${inFlight.refused} refused for 160 tasks, ${inFlight.seconds.toFixed(1)} s (ideal 40)`,
    );
    assert.deepEqual(notCompleted(inFlight.rows), []);
    const retried = inFlight.rows.filter((row) => row.attempts !== 0);
    assert.deepEqual(
      retried.map((row) => `${row.id}: ${row.attempts} ${row.error ?? ''}`),
      [],
      'no attempt spent',
    );
    assert.ok(inFlight.refused <= 0.15 * 160, `${inFlight.refused} refused calls against 4 in flight`);

    // 120 per minute, a bucket of 2 s of refill (4 requests), stated in every answer's headers.
    limit.set({ requestsPerWindow: 120, burst: 4, windowMs: WINDOW_MS, latencyMs: 1000 });
    const perMinute = await scenario(core, time, limit, 'per-minute', 60);
    const ideal = ((60 - 4) / 120) * (WINDOW_MS / 1000);
    t.diagnostic(
      `120/min: ${perMinute.refused} refused for 60 tasks, ${perMinute.seconds.toFixed(1)} s (ideal ${ideal.toFixed(1)})`,
    );
    assert.deepEqual(notCompleted(perMinute.rows), []);
    assert.ok(perMinute.refused <= 0.05 * 60, `${perMinute.refused} refused calls against 120 per minute`);

    limit.set({ latencyMs: 5000 });
    const wide = await scenario(core, time, limit, 'wide', 1000);
    t.diagnostic(
      `no limit: 1,000 tasks in ${wide.total.toFixed(1)} s from their arrival (bound 25), ${wide.widest} in flight at most, ${wide.refused} refused`,
    );
    const firstAt = limit.stats.acceptedAt.at(-1000) ?? 0;
    const perSecond: number[] = [];
    for (const at of limit.stats.acceptedAt.slice(-1000)) {
      const second = Math.floor((at - firstAt) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }
    t.diagnostic(
      `calls started per second of the wide run: ${Array.from(perSecond, (n) => n ?? 0).join(', ')}`,
    );
    assert.deepEqual(notCompleted(wide.rows), []);
    assert.equal(wide.refused, 0);
    // The old low limit (4 calls at once) was forgotten and the pool climbed far past it (before
    // issue 39 it stayed at 1 for hours): the whole run ends within the 25 s.
    assert.ok(
      wide.total <= 25,
      `1,000 five-second tasks took ${wide.total.toFixed(1)} s (${wide.widest} in flight at most)`,
    );
  } finally {
    await core?.close(500);
    await time.stop();
    await fake.close();
    await removeTestData(config);
  }
});
