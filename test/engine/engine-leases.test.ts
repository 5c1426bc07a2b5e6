import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, mock, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider, PollOutcome } from '../../src/capabilities/providers/provider.js';
import { type Core, createCore } from '../../src/core.js';
import { LEASE_MS } from '../../src/core-resources.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { openDatabase } from '../../src/infra/store/database.js';

// Every timer of the engine (the loop's sleeps, the heartbeats) and every "now" run on a mocked
// clock that the test moves by hand: minutes pass in milliseconds, and nothing depends on how
// fast this machine is. The store is a SQLite file on either test run: a mocked clock needs
// queries that finish without real I/O waits (the two-engine tests cover PostgreSQL leasing).
const IDLE_POLL_MS = 1000;

/** Counts every statement sent to the database through this Kysely instance. */
function queryCounter() {
  const counter = { n: 0 };
  const plugin: KyselyPlugin = {
    // Sub-selects pass through transformQuery too; a result comes back once per executed statement.
    transformQuery: (args) => args.node,
    async transformResult(args) {
      counter.n++;
      return args.result;
    },
  };
  return { counter, plugin };
}

/** Lets every promise chain started by a timer run to its end (database calls are synchronous underneath). */
async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the mocked clock forward by `ms`, in small steps, letting the engine react at each. */
async function advance(ms: number, stepMs = 50): Promise<void> {
  for (let passed = 0; passed < ms; passed += stepMs) {
    mock.timers.tick(stepMs);
    await settle();
  }
}

/** A local-renderer provider whose polls wait for the test to let them answer. */
function gatedProvider() {
  const local = createLocalProvider({ clock: systemClock, latencyMs: 1 });
  const state = { polls: 0, submits: 0, release: () => {} };
  const released = new Promise<void>((resolve) => {
    state.release = resolve;
  });
  const provider: ImageProvider = {
    ...local,
    pollIntervalMs: 100,
    async submit(request) {
      state.submits++;
      return local.submit(request);
    },
    async poll(request): Promise<PollOutcome> {
      state.polls++;
      const aborted = new Promise<void>((resolve) =>
        request.signal.addEventListener('abort', () => resolve()),
      );
      await Promise.race([released, aborted]);
      if (request.signal.aborted) return { kind: 'failed', retryable: true, message: 'aborted' };
      return local.poll(request);
    },
  };
  return { provider, state };
}

let dataDir: string;
const cores: Core[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'engine-leases-'));
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
});

afterEach(async () => {
  mock.timers.reset();
  for (const core of cores.splice(0)) await core.close(100);
  await rm(dataDir, { recursive: true, force: true });
});

/** A core on the shared database file of this test, with `provider` as the `local` provider. */
async function startCore(provider: ImageProvider, plugin?: KyselyPlugin): Promise<Core> {
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ATELIER_DEMO_ACCOUNT: 'false',
    // The catalog's and the tier policies' readings of their version in force (every 2 s by default)
    // are not the engine's loop this file counts: once a minute here.
    ATELIER_CONFIG_REFRESH_MS: '60000',
  });
  const db = await openDatabase(config.databaseUrl);
  const core = await createCore(config, {
    db: plugin ? db.withPlugin(plugin) : db,
    idlePollMs: IDLE_POLL_MS,
    providers: {
      get: (n) => (n === 'local' ? provider : undefined),
      names: () => ['local'],
      deploymentKeys: {},
    },
  });
  cores.push(core);
  return core;
}

async function submitOne(core: Core): Promise<string> {
  const { account } = await core.accounts.create({ email: `lease${Date.now()}@example.test` });
  const { task_ids } = await core.generations.generate(account, { prompt: 'slow upstream', imageSize: '1K' });
  return task_ids[0] ?? '';
}

test('the loop is idle while a task is in flight: a bounded number of queries per interval, no busy re-asking', async () => {
  const { provider, state } = gatedProvider();
  const { counter, plugin } = queryCounter();
  const core = await startCore(provider, plugin);
  await submitOne(core);
  core.engine.start();
  await advance(500);
  assert.equal(state.polls, 1, 'the upstream poll is in flight');

  const before = counter.n;
  const windowMs = 60_000;
  await advance(windowMs);
  const queries = counter.n - before;
  // One look per idle period (lease + next due), plus a heartbeat every third of a lease.
  const bound = Math.ceil((windowMs / IDLE_POLL_MS) * 2 + (windowMs / (LEASE_MS / 3)) * 2);
  assert.ok(queries <= bound, `${queries} queries in ${windowMs / 1000} s while one task was in flight`);
  assert.equal(state.polls, 1, 'nobody polls the task again meanwhile');
  state.release();
});

test('a lease outlives a slow asynchronous step (heartbeat), and a second engine never takes the task meanwhile', async () => {
  const { provider, state } = gatedProvider();
  const first = await startCore(provider);
  const taskId = await submitOne(first);
  first.engine.start();
  await advance(500);
  assert.equal(state.polls, 1);

  const other = gatedProvider();
  const second = await startCore(other.provider);
  second.engine.start();
  // Three leases' worth of time in the slow poll.
  await advance(3 * LEASE_MS);
  const row = await first.resources.db
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', taskId)
    .executeTakeFirstOrThrow();
  assert.equal(row.lease_owner, first.engine.owner, 'the first engine still holds the lease');
  assert.ok(Number(row.lease_expires_at) > Date.now(), 'and it is live');
  assert.equal(other.state.polls + other.state.submits, 0, 'the second engine never touched the task');
  assert.equal(state.polls, 1);

  // The result is rendered and stored with real I/O (no timer involved): wait for the change event.
  const completed = new Promise<string>((resolve) => {
    first.taskEvents.subscribe(row.account_id, {
      onChange: ({ record }) =>
        record.task_id === taskId && record.status !== 'queued' && resolve(record.status),
    });
  });
  state.release();
  assert.equal(await completed, 'completed');
  assert.equal(state.polls, 1);
});
