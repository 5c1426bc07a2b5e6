import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { createReplicateProvider } from '../../src/capabilities/providers/replicate-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import { allEnded, notCompleted } from './capacity-fixtures.js';
import { MODEL, replicateEnv, startCountingReplicate, TOKEN } from './cluster-fixtures.js';

// A Retry-After answered to an async job's poll (Replicate's prediction GET throttled with 429)
// holds the whole pool (provider, model, key) in the store, as a refused submit's does: the other
// tasks' polls and new submits on it wait, on every worker sharing the database (issue 27).

function registry(providers: ImageProvider[], keys: Record<string, string>): ProviderRegistry {
  return {
    get: (name) => providers.find((provider) => provider.name === name),
    names: () => providers.map((provider) => provider.name),
    deploymentKeys: keys,
  };
}

test("a Retry-After on an async job's poll holds the whole pool, on every worker: other tasks' polls and new submits wait", async (t) => {
  const fake = await startCountingReplicate();
  const config = loadConfig({ ...(await freshTestDataEnv('capacity-poll-hold-')), ...replicateEnv(fake) });
  const cores: Core[] = [];
  const TASKS = 8;
  try {
    // Two workers on one database, polling every 200 ms; each prediction runs for 15 polls.
    for (let i = 0; i < 2; i++) {
      const replicate = createReplicateProvider({ baseUrl: fake.baseUrl, pollIntervalMs: 200 });
      cores.push(
        await createCore(config, { idlePollMs: 200, providers: registry([replicate], { replicate: TOKEN }) }),
      );
    }
    const [first] = cores as [Core, Core];
    const statuses = ['starting', ...Array.from({ length: 15 }, () => 'processing'), 'succeeded'];
    fake.scriptLifecycle(...Array.from({ length: TASKS + 2 }, () => ({ statuses })));
    const { account } = await first.accounts.create({ email: 'poll-hold@example.test' });
    const generate = async (prompt: string) =>
      (await first.generations.generate(account, { prompt, model: MODEL, imageSize: '1K' })).task_ids;
    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i++) taskIds.push(...(await generate(`held poll ${i}`)));
    for (const core of cores) core.engine.start();

    // Once every prediction is being polled, the next GET is refused: 429, Retry-After 3 s.
    const gets = () =>
      fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/predictions/'));
    await until(() => new Set(gets().map((r) => r.path)).size === TASKS);
    const scriptedAt = gets().length;
    fake.scriptPoll({
      kind: 'error',
      status: 429,
      json: { detail: 'Request was throttled. Expected available in 3 seconds.', status: 429 },
      headers: { 'retry-after': '3' },
    });
    await until(() => gets().length > scriptedAt);
    const refusedAt = gets()[scriptedAt]?.at ?? 0;
    // The hold as every worker reads it from the store (0 if none is written before it would end).
    const holdUntil = await until(async () => {
      const row = await first.resources.db
        .selectFrom('upstream_pools')
        .select('hold_until')
        .executeTakeFirst();
      if (Number(row?.hold_until ?? 0) > refusedAt) return Number(row?.hold_until);
      return Date.now() >= refusedAt + 3000 ? 0 : undefined;
    });
    const seenAt = Date.now();
    // A task submitted during the hold is not sent before it ends.
    if (holdUntil > 0) taskIds.push(...(await generate('submitted during the hold')));
    const rows = await allEnded(cores, account.id, taskIds);

    // Polls from when the hold was seen in the store (from the refusal if it never was) to the end
    // of the Retry-After.
    const from = holdUntil > 0 ? seenAt : refusedAt;
    const during = gets().filter((r) => r.at > from && r.at < refusedAt + 3000);
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.at >= seenAt);
    t.diagnostic(
      `hold ${holdUntil - refusedAt} ms after the refusal; ${during.length} polls within its Retry-After; creates at +${creates.map((r) => r.at - refusedAt).join(', ')} ms`,
    );
    assert.deepEqual(notCompleted(rows), []);
    // Counted by the upstream. A poll already on its way when the hold was written may still arrive
    // (one per other task at most: each reads the hold again before its next poll); without the
    // hold, the other tasks poll every 200 ms.
    assert.ok(during.length < TASKS, `${during.length} polls reached the upstream within the Retry-After`);
    assert.ok(holdUntil >= refusedAt + 3000, 'the pool is held in the store for the Retry-After');
    assert.equal(creates.length, 1);
    assert.ok((creates[0]?.at ?? 0) >= holdUntil, 'the submit waited for the hold to end');
  } finally {
    for (const core of cores) await core.close(500);
    await fake.close();
    await removeTestData(config);
  }
});

/**
 * Resolves with `probe`'s first defined (or true) answer, asked every 20 ms; rejects when none came
 * within `giveUpMs` (what the test waits for then never happens: a failure, not a hang).
 */
async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  giveUpMs = 30_000,
): Promise<T> {
  const giveUpAt = Date.now() + giveUpMs;
  while (Date.now() < giveUpAt) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`still waiting after ${giveUpMs} ms for ${probe.toString().slice(0, 120)}`);
}
