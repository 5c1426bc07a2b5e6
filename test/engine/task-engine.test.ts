import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider, SubmitOutcome } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { pollDelayMs, retryDelayMs } from '../../src/capabilities/tasks/task-engine.js';
import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

async function tempConfig(env: Record<string, string> = {}) {
  return loadConfig({
    ...(await freshTestDataEnv('engine-')),
    LOG_LEVEL: 'silent',
    ATELIER_LOCAL_LATENCY_MS: '200',
    ...env,
  });
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  throw new Error('condition not met in time');
}

test('retry delays: exponential with full jitter, capped, never before Retry-After', () => {
  assert.equal(
    retryDelayMs(1, undefined, () => 1),
    2000,
  );
  assert.equal(
    retryDelayMs(3, undefined, () => 1),
    8000,
  );
  assert.equal(
    retryDelayMs(30, undefined, () => 1),
    60_000,
  );
  assert.equal(
    retryDelayMs(3, undefined, () => 0),
    0,
  );
  assert.equal(
    retryDelayMs(1, 30_000, () => 0.5),
    30_000,
  );
  assert.equal(pollDelayMs({ pollIntervalMs: 250 }, 9), 250);
  assert.ok(pollDelayMs({}, 0, () => 0.5) === 1000);
  assert.ok(pollDelayMs({}, 20, () => 0.5) === 5000);
});

test('a restart picks up every unfinished task: none lost, none stuck', async () => {
  const config = await tempConfig({ ATELIER_LOCAL_LATENCY_MS: '300' });
  // First process: accepts the work (inline submit) but its worker never runs, then "crashes".
  const first = await createCore(config, { idlePollMs: 20 });
  const { account } = await first.accounts.create({ email: 'restart@example.test' });
  const { task_ids } = await first.generations.generate(account, {
    prompt: 'survive a restart',
    count: 3,
    imageSize: '1K',
  });
  // Simulate a worker that crashed mid-poll holding a lease that has not expired yet.
  await first.resources.db
    .updateTable('tasks')
    .set({ lease_owner: 'wrk_dead', lease_expires_at: Date.now() + 400 })
    .where('id', '=', task_ids[0] ?? '')
    .execute();
  await first.resources.db.destroy();

  const second = await createCore(config, { idlePollMs: 20 });
  second.engine.start();
  try {
    const rows = await waitFor(async () => {
      const rows = await second.tasks.findManyForAccount(account.id, task_ids);
      return rows.every((r) => r.status === 'completed') ? rows : undefined;
    });
    assert.equal(rows.length, 3);
    for (const row of rows) assert.ok(row.image_url && (await second.blobs.stat(row.blob_key ?? '')));
  } finally {
    await second.close(500);
    await removeTestData(config);
  }
});

test('a task past its deadline fails with a clear error instead of staying in progress', async () => {
  const config = await tempConfig({ ATELIER_LOCAL_LATENCY_MS: '60000', ATELIER_TASK_DEADLINE_MS: '1000' });
  const core = await createCore(config, { idlePollMs: 20 });
  core.engine.start();
  try {
    const { account } = await core.accounts.create({ email: 'slow@example.test' });
    const { task_ids } = await core.generations.generate(account, { prompt: 'never done', imageSize: '1K' });
    const row = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, task_ids[0] ?? '');
      return row?.status === 'failed' ? row : undefined;
    });
    assert.match(row.error ?? '', /timed out/);
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});

/** A provider whose behaviour the test scripts, one outcome per submit call. */
function scriptedProvider(outcomes: SubmitOutcome[], calls: { n: number }): ImageProvider {
  const local = createLocalProvider({ clock: systemClock, latencyMs: 10 });
  return {
    name: 'local',
    requiresKey: false,
    submitsInline: false,
    expectedDurationMs: () => 1000,
    async submit(request) {
      calls.n++;
      const next = outcomes.shift();
      if (next) return next;
      const pending = await local.submit(request);
      if (pending.kind !== 'pending') return pending;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return local.poll({ ...request, upstreamId: pending.upstreamId }) as Promise<SubmitOutcome>;
    },
    poll: local.poll,
  };
}

async function coreWithProvider(provider: ImageProvider, env: Record<string, string> = {}) {
  const config = await tempConfig(env);
  const providers: ProviderRegistry = {
    get: (n) => (n === 'local' ? provider : undefined),
    names: () => ['local'],
    deploymentKeys: {},
  };
  const core = await createCore(config, { idlePollMs: 20, providers });
  return { core, config };
}

test('retryable failures are retried (honouring Retry-After), then succeed; the final state never changes', async () => {
  const calls = { n: 0 };
  const provider = scriptedProvider(
    [
      { kind: 'failed', retryable: true, message: '429 slow down', retryAfterMs: 50 },
      { kind: 'failed', retryable: true, message: '503 busy', retryAfterMs: 10 },
    ],
    calls,
  );
  const { core, config } = await coreWithProvider(provider);
  core.engine.start();
  try {
    const { account } = await core.accounts.create({ email: 'retry@example.test' });
    const { task_ids } = await core.generations.generate(account, { prompt: 'retry me', imageSize: '1K' });
    const id = task_ids[0] ?? '';
    const row = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, id);
      return row?.status === 'completed' ? row : undefined;
    });
    assert.equal(calls.n, 3);
    assert.equal(row.progress, 100);
    // The engine guards final states: a late write (e.g. from a worker that lost its lease) is refused.
    const wrote = await core.tasks.updateLeased(id, row.lease_owner ?? 'anyone', {
      status: 'failed',
      error: 'late',
    });
    assert.equal(wrote, false);
    const again = await core.tasks.findForAccount(account.id, id);
    assert.equal(again?.status, 'completed');
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});

test('a final upstream failure fails the task with the upstream message; retries stop at the attempt limit', async () => {
  const calls = { n: 0 };
  const provider = scriptedProvider(
    [
      { kind: 'failed', retryable: false, message: 'Blocked by safety filter: SAFETY' },
      ...Array.from({ length: 10 }, () => ({
        kind: 'failed' as const,
        retryable: true,
        message: 'still 500',
        retryAfterMs: 1,
      })),
    ],
    calls,
  );
  const { core, config } = await coreWithProvider(provider, { ATELIER_SUBMIT_MAX_ATTEMPTS: '3' });
  core.engine.start();
  try {
    const { account } = await core.accounts.create({ email: 'final@example.test' });
    const first =
      (await core.generations.generate(account, { prompt: 'blocked', imageSize: '1K' })).task_ids[0] ?? '';
    const blocked = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, first);
      return row?.status === 'failed' ? row : undefined;
    });
    assert.equal(blocked.error, 'Blocked by safety filter: SAFETY');
    const second =
      (await core.generations.generate(account, { prompt: 'flaky', imageSize: '1K' })).task_ids[0] ?? '';
    const exhausted = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, second);
      return row?.status === 'failed' ? row : undefined;
    });
    assert.equal(exhausted.error, 'still 500');
    assert.equal(calls.n, 1 + 3);
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});

test('a sync call that may have been accepted upstream is retried at most once', async () => {
  const calls = { n: 0 };
  const maybe = {
    kind: 'failed' as const,
    retryable: true,
    maybeAccepted: true,
    message: 'connection reset after send',
    retryAfterMs: 1,
  };
  const provider = scriptedProvider([maybe, maybe, maybe], calls);
  const { core, config } = await coreWithProvider(provider);
  core.engine.start();
  try {
    const { account } = await core.accounts.create({ email: 'maybe@example.test' });
    const id =
      (await core.generations.generate(account, { prompt: 'maybe', imageSize: '1K' })).task_ids[0] ?? '';
    const row = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, id);
      return row?.status === 'failed' ? row : undefined;
    });
    assert.equal(calls.n, 2);
    assert.match(row.error ?? '', /connection reset/);
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});

test('an async submit that may have been accepted is resubmitted with reconcile set, not blindly, and not capped at one retry', async () => {
  const seen: boolean[] = [];
  const local = createLocalProvider({ clock: systemClock, latencyMs: 10 });
  const lost = {
    kind: 'failed' as const,
    retryable: true,
    maybeAccepted: true,
    message: 'create timed out',
    retryAfterMs: 1,
  };
  const provider: ImageProvider = {
    ...local,
    submitsInline: true,
    async submit(request) {
      seen.push(request.reconcile === true);
      if (seen.length <= 2) return lost;
      return local.submit(request);
    },
  };
  const { core, config } = await coreWithProvider(provider);
  core.engine.start();
  try {
    const { account } = await core.accounts.create({ email: 'reconcile@example.test' });
    const id =
      (await core.generations.generate(account, { prompt: 'lost create', imageSize: '1K' })).task_ids[0] ??
      '';
    const row = await waitFor(async () => {
      const row = await core.tasks.findForAccount(account.id, id);
      return row?.status === 'completed' ? row : undefined;
    });
    assert.deepEqual(seen, [false, true, true]);
    assert.equal(row.needs_reconcile, 0);
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});
