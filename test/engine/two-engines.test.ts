import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { isFinalStatus } from '../../src/base/domain/task-status.js';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { createReplicateProvider } from '../../src/capabilities/providers/replicate-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import type { FakeReplicate } from '../fakes/providers/fake-replicate.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import {
  allFinal,
  createsPerPrompt,
  MODEL,
  overlapWatch,
  replicateEnv,
  startCountingReplicate,
  startHoldingRelay,
  TOKEN,
} from './cluster-fixtures.js';

// Several engines on one database (a SQLite file, or a PostgreSQL database on the PostgreSQL run),
// each with its own connection(s), as separate nodes would be. Short leases (3 s, renewed every
// second) so that a dead worker's tasks come back quickly; nothing here waits on a clock window.
const LEASE_MS = 3000;
const IDLE_POLL_MS = 200;
const TASKS = 200;

/** Providers of one node: Replicate pointed at `baseUrl` (no circuit breaker: the tests script 503s). */
function registry(baseUrl: string, wrap: (p: ImageProvider) => ImageProvider = (p) => p): ProviderRegistry {
  const replicate = wrap(createReplicateProvider({ baseUrl, requestTimeoutMs: 30_000 }));
  const local = createLocalProvider({ clock: systemClock, latencyMs: 100 });
  return {
    get: (name) => (name === 'replicate' ? replicate : name === 'local' ? local : undefined),
    names: () => ['local', 'replicate'],
    deploymentKeys: { replicate: TOKEN },
  };
}

/** Creates `count` one-image generations with distinct prompts; returns the account and task ids. */
async function submitTasks(api: Core, count: number, label: string) {
  const { account } = await api.accounts.create({ email: `${label}@example.test` });
  const taskIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const { task_ids } = await api.generations.generate(account, {
      prompt: `${label} task ${i}`,
      model: MODEL,
      imageSize: '1K',
    });
    taskIds.push(...task_ids);
  }
  return { accountId: account.id, taskIds };
}

/** The next `count` creates are refused with a 503 (nothing is created; the task is retried later). */
function refuseCreates(fake: FakeReplicate, count: number): void {
  fake.scriptCreate(
    ...Array.from({ length: count }, () => ({
      kind: 'error' as const,
      status: 503,
      json: { detail: 'busy' },
    })),
  );
}

function assertEveryTaskCompletedOnce(
  fake: FakeReplicate,
  rows: Array<{ status: string; error: string | null }>,
) {
  assert.equal(rows.length, TASKS);
  const failed = rows.filter((r) => r.status !== 'completed');
  assert.deepEqual(failed, [], 'every task completed');
  const creates = createsPerPrompt(fake);
  assert.equal(creates.size, TASKS, 'every task was submitted');
  const duplicated = [...creates].filter(([, n]) => n > 1);
  assert.deepEqual(duplicated, [], 'no submission was made twice');
  assert.equal(fake.predictions.length, TASKS);
}

/** Usage counts each task once, in the transaction of its final write, whichever engine ended it. */
async function assertUsageCountedOnce(core: Core, accountId: string) {
  const { totals } = await core.usage.report({ id: accountId, tier: 'trial' }, {});
  const { cost_micros: spend, ...counts } = totals;
  assert.deepEqual(counts, { completed: TASKS, failed: 0, absorbed_micros: 0 });
  // Every image of this route has one per-image price: spend counted once is TASKS times one price.
  const perTask = spend / TASKS;
  assert.ok(Number.isInteger(perTask) && perTask > 0, `spend ${spend} is ${TASKS} equal task costs`);
  const costs = await core.resources.db
    .selectFrom('tasks')
    .select('cost_micros')
    .where('account_id', '=', accountId)
    .execute();
  assert.deepEqual(new Set(costs.map((row) => Number(row.cost_micros))), new Set([perTask]));
}

describe('two engines on one database', { timeout: 180_000 }, () => {
  let fake: FakeReplicate;
  let config: Config;
  const cores: Core[] = [];

  before(async () => {
    fake = await startCountingReplicate();
  });
  after(async () => {
    for (const core of cores.splice(0)) await core.close(1000);
    if (config) await removeTestData(config);
    await fake.close();
  });

  test(`${TASKS} tasks: every one completes, none is worked by two engines at once, none is submitted twice`, async () => {
    config = loadConfig({ ...(await freshTestDataEnv('two-engines-')), ...replicateEnv(fake) });
    const watch = overlapWatch();
    const open = async (providers: ProviderRegistry) => {
      const core = await createCore(config, { providers, leaseMs: LEASE_MS, idlePollMs: IDLE_POLL_MS });
      cores.push(core);
      return core;
    };
    // An api node (it submits inline, as the generate route does) and two worker nodes.
    const api = await open(registry(fake.baseUrl));
    const workers = [
      await open(registry(fake.baseUrl, watch.wrap)),
      await open(registry(fake.baseUrl, watch.wrap)),
    ];
    for (const worker of workers) worker.engine.start();
    // A third of the inline creates meet a 503: those tasks are submitted later by the workers.
    refuseCreates(fake, Math.floor(TASKS / 3));
    const { accountId, taskIds } = await submitTasks(api, TASKS, 'pair');
    const rows = await allFinal([api, ...workers], accountId, taskIds);
    assertEveryTaskCompletedOnce(fake, rows);
    await assertUsageCountedOnce(api, accountId);
    assert.deepEqual(watch.overlaps, [], 'no task had two upstream calls in flight at once');
    for (const core of cores.splice(0)) await core.close(1000);
    await removeTestData(config);
  });
});

describe('a worker killed with SIGKILL mid-run', { timeout: 180_000 }, () => {
  let fake: FakeReplicate;
  let relay: Awaited<ReturnType<typeof startHoldingRelay>>;
  let config: Config;
  let child: ChildProcess | undefined;
  const cores: Core[] = [];

  before(async () => {
    fake = await startCountingReplicate();
    relay = await startHoldingRelay(fake.baseUrl);
  });
  after(async () => {
    child?.kill('SIGKILL');
    for (const core of cores.splice(0)) await core.close(1000);
    if (config) await removeTestData(config);
    await relay.close();
    await fake.close();
  });

  test('the other worker finishes every task after the leases expire, without a second submission', async () => {
    const env = { ...(await freshTestDataEnv('killed-worker-')), ...replicateEnv(fake) };
    config = loadConfig(env);
    const api = await createCore(config, { providers: registry(fake.baseUrl), leaseMs: LEASE_MS });
    cores.push(api);
    // A third of the creates fail at first (503, nothing created): workers submit those tasks.
    refuseCreates(fake, Math.floor(TASKS / 3));
    const { accountId, taskIds } = await submitTasks(api, TASKS, 'killed');

    // The doomed worker is alone at first, so it surely takes tasks; its Replicate calls go through
    // the relay, which holds back the answer of the first create the upstream accepted.
    child = spawn(process.execPath, ['--import', 'tsx', 'test/engine/worker-process.ts'], {
      env: {
        ...process.env,
        ...env,
        ATELIER_REPLICATE_BASE_URL: relay.baseUrl,
        ATELIER_ROLES: 'worker',
        TEST_LEASE_MS: String(LEASE_MS),
        TEST_IDLE_POLL_MS: String(IDLE_POLL_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Killed once one create waits for an answer that never comes and another is still on the wire.
    await relay.held;
    await relay.late;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    const [, signal] = await exited;
    assert.equal(signal, 'SIGKILL');

    const survivor = await createCore(config, {
      providers: registry(fake.baseUrl),
      leaseMs: LEASE_MS,
      idlePollMs: IDLE_POLL_MS,
    });
    cores.push(survivor);
    // The create left on the wire reaches the upstream once the survivor has finished a task: it
    // must not have submitted that task again in the meantime (the dead worker's maybe-sent
    // submits settle before anyone reconciles them).
    const firstDone = new Promise<void>((resolve) => {
      const stop = survivor.taskEvents.subscribe(accountId, {
        onChange: ({ record }) => {
          if (!isFinalStatus(record.status)) return;
          stop();
          resolve();
        },
      });
    });
    survivor.engine.start();
    await firstDone;
    relay.deliverLate();
    const rows = await allFinal([survivor], accountId, taskIds);
    assertEveryTaskCompletedOnce(fake, rows);
    await assertUsageCountedOnce(survivor, accountId);
  });
});
