import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGeminiProvider } from '../../src/capabilities/providers/gemini-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import { createReplicateProvider } from '../../src/capabilities/providers/replicate-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { startFakeReplicate } from '../fakes/providers/fake-replicate.js';
import { callsHeld, createUpstreamLimit, type UpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import { countedProvider, openCountedDatabase, startVirtualTime } from '../support/virtual-time.js';
import {
  allEnded,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// Issue 39: a limit on time is not a limit on calls at once, for the providers whose refusals say so
// in their own shapes — Gemini's 429 RESOURCE_EXHAUSTED with a google.rpc.QuotaFailure and a
// RetryInfo delay, Replicate's throttled 429 with Retry-After (every Replicate limit is a rate).
// One app lives through a per-minute limit (20 calls a minute, calls of 1 s, 40 tasks: the burst
// is refused past the window while other calls are in flight), then the upstream lifts it and 300
// five-second tasks must go out at full width at once — the pool held for the stated waits and
// learned no limit on calls at once. On virtual time (test/support/virtual-time.ts): the minute
// passes without being sat out, and the width is the upstream's own count.
const WINDOW_MS = 60_000;

/** Most calls the upstream had in flight at once among its accepted calls from index `from` on. */
function widestSince(limit: UpstreamLimit, from: number): number {
  const starts = limit.stats.acceptedAt.slice(from).map((at) => ({ at, d: 1 }));
  const ends = limit.stats.endedAt.slice(from).map((at) => ({ at, d: -1 }));
  let now = 0;
  let most = 0;
  for (const { d } of [...starts, ...ends].sort((a, b) => a.at - b.at || a.d - b.d)) {
    now += d;
    most = Math.max(most, now);
  }
  return most;
}

async function throughTimeLimit(
  t: { diagnostic(message: string): void },
  limit: UpstreamLimit,
  provider: ImageProvider,
  configOf: () => ReturnType<typeof capacityConfig>,
  inline = false,
) {
  const config = await configOf();
  const store = await openCountedDatabase(config.databaseUrl);
  const calls = countedProvider(provider, callsHeld);
  const time = startVirtualTime([store.busy, calls.busy]);
  let core: Core | undefined;
  try {
    core = await createCore(config, { ...capacityOverrides(calls.provider), db: store.db });
    core.engine.start();
    // Replicate's requests are submitted inline by the request itself, which waits for its creates
    // (on virtual time, which must move meanwhile; the fake holds each create for the call's whole
    // latency): its burst's requests go at once. Gemini's are left to the engine: the burst arrives
    // at one instant.
    const run = async (label: string, images: number) => {
      const app = core as Core;
      if (!inline) {
        const { accountId, taskIds } = await time.still(() => submitBurst(app, label, images));
        return allEnded([app], accountId, taskIds);
      }
      const { account } = await app.accounts.create({ email: `${label}-${Date.now()}@example.test` });
      const requests = Array.from({ length: images / 4 }, (_, i) =>
        app.generations.generate(account, {
          prompt: `${label} ${i}`,
          model: 'base-image-2',
          imageSize: '1K',
          count: 4,
        }),
      );
      const taskIds = (await Promise.all(requests)).flatMap((request) => request.task_ids);
      return allEnded([app], account.id, taskIds);
    };

    const episode = await run('per-minute', 40);
    assert.deepEqual(notCompleted(episode), []);
    const pools = await core.resources.db
      .selectFrom('upstream_pools')
      .select(['pool', 'learned_limit'])
      .execute();
    t.diagnostic(
      `per minute: ${limit.stats.refused} refused (${limit.stats.refusedOnTime} on time) for 40 tasks`,
    );
    assert.ok(limit.stats.refusedOnTime > 0, 'the burst met the per-minute limit');
    assert.deepEqual(
      pools.filter((pool) => pool.learned_limit !== null),
      [],
      'a limit on time taught no limit on calls at once',
    );

    limit.set({ latencyMs: 5000 });
    const from = limit.stats.acceptedAt.length;
    const startedAt = Date.now();
    const wide = await run('wide', 300);
    const seconds = (Math.max(...limit.stats.endedAt) - startedAt) / 1000;
    const widest = widestSince(limit, from);
    const perSecond: number[] = [];
    for (const at of limit.stats.acceptedAt.slice(from)) {
      const second = Math.floor((at - startedAt) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }
    t.diagnostic(
      `calls started per second: ${Array.from(perSecond, (n) => n ?? 0).join(', ')}; refused ${limit.stats.refused}`,
    );
    t.diagnostic(
      `then no limit: 300 five-second tasks in ${seconds.toFixed(1)} s, ${widest} in flight at most`,
    );
    assert.deepEqual(notCompleted(wide), []);
    // The whole run at once, in about one call's time (Replicate reached 180 at once and took 20 s
    // while a generate request submitted its 4 images one create after another).
    assert.ok(widest >= 290, `${widest} calls in flight at most after a per-minute limit`);
    assert.ok(seconds <= 8, `300 five-second tasks took ${seconds.toFixed(1)} s`);
  } finally {
    await core?.close(500);
    await time.stop();
    await removeTestData(config);
  }
}

test('Gemini: a per-minute quota (QuotaFailure + RetryInfo) holds the pool and leaves calls at once alone', {
  timeout: 600_000,
}, async (t) => {
  const limit = createUpstreamLimit({ perWindow: 20, windowMs: WINDOW_MS, latencyMs: 1000 });
  const fake = await startFakeGemini({ apiKey: UPSTREAM_KEY, limit });
  try {
    await throughTimeLimit(t, limit, createGeminiProvider({ baseUrl: fake.baseUrl }), () =>
      capacityConfig('gemini', 'gemini-3.1-flash-image', undefined),
    );
  } finally {
    await fake.close();
  }
});

test('Replicate: a throttled create (429 + Retry-After) holds the pool and leaves calls at once alone', {
  timeout: 600_000,
}, async (t) => {
  const limit = createUpstreamLimit({ perWindow: 20, windowMs: WINDOW_MS, latencyMs: 1000 });
  const fake = await startFakeReplicate({
    token: UPSTREAM_KEY,
    limit,
    models: [
      { name: 'google/nano-banana-2', version: 'f'.repeat(64), inputs: { prompt: { type: 'string' } } },
    ],
  });
  try {
    await throughTimeLimit(
      t,
      limit,
      createReplicateProvider({ baseUrl: fake.baseUrl }),
      () =>
        capacityConfig('replicate', 'google/nano-banana-2', undefined, {
          ATELIER_UPLOAD_ALLOWED_HOSTS: new URL(fake.baseUrl).host,
        }),
      true,
    );
  } finally {
    await fake.close();
  }
});
