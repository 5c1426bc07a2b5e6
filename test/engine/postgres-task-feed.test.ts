import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import {
  createPostgresTaskFeed,
  TASK_FEED_CHANNELS,
} from '../../src/capabilities/tasks/postgres-task-feed.js';
import type { TaskChange, TaskChangeFeed } from '../../src/capabilities/tasks/task-events.js';
import type { TaskRecord } from '../../src/capabilities/tasks/task-record.js';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { createPostgresListener, type PostgresListener } from '../../src/infra/store/postgres-listener.js';
import {
  dropTestDatabase,
  freshTestDataEnv,
  removeTestData,
  testDatabaseEnv,
  testStore,
} from '../support/test-database.js';

const onPostgres = {
  skip: testStore() === 'postgres' ? false : 'LISTEN/NOTIFY: runs in the PostgreSQL half of npm test',
};
const silent = pino({ level: 'silent' });

/** The next change the account's subscribers hear on `feed`. */
function nextChange(feed: TaskChangeFeed, accountId: string): Promise<TaskChange> {
  return new Promise((resolve) => {
    const unsubscribe = feed.subscribe(accountId, {
      onChange: (change) => {
        unsubscribe();
        resolve(change);
      },
    });
  });
}

const record = (taskId: string, progress: number): TaskRecord => ({
  task_id: taskId,
  status: 'in_progress',
  progress,
});

describe('task change feed over LISTEN/NOTIFY', onPostgres, () => {
  let databaseUrl: string;
  let db: Db;
  const feeds: TaskChangeFeed[] = [];
  const listeners: PostgresListener[] = [];
  const stored = new Map<string, TaskRecord>();

  const openFeed = async () => {
    const listener = await createPostgresListener({
      connectionString: databaseUrl,
      channels: TASK_FEED_CHANNELS,
      logger: silent,
    });
    listeners.push(listener);
    const feed = createPostgresTaskFeed({
      db,
      listener,
      logger: silent,
      load: async (_accountId, taskId) => stored.get(taskId),
    });
    feeds.push(feed);
    return feed;
  };

  before(async () => {
    databaseUrl = (await testDatabaseEnv()).ATELIER_DATABASE_URL ?? '';
    db = await openDatabase(databaseUrl);
  });
  after(async () => {
    for (const feed of feeds) await feed.close();
    for (const listener of listeners) await listener.close();
    await db.destroy();
    await dropTestDatabase(databaseUrl);
  });

  test('a change published on one node reaches the subscribers of another, and its own once', async () => {
    const [one, two] = [await openFeed(), await openFeed()];
    const local: TaskChange[] = [];
    one.subscribe('acc_a', { onChange: (change) => local.push(change) });
    const heard = nextChange(two, 'acc_a');
    one.publish({ accountId: 'acc_a', record: record('tsk_1', 10) });
    assert.deepEqual((await heard).record, record('tsk_1', 10));
    // Its own notification came back over the connection too, and was dropped: one delivery.
    const again = nextChange(two, 'acc_a');
    one.publish({ accountId: 'acc_a', record: record('tsk_1', 20) });
    await again;
    assert.deepEqual(
      local.map((c) => c.record.progress),
      [10, 20],
    );
  });

  test('a record too large for a notification travels as its id and is read from the store', async () => {
    const [one, two] = [await openFeed(), await openFeed()];
    const large: TaskRecord = { task_id: 'tsk_big', status: 'failed', progress: 0, error: 'x'.repeat(9000) };
    stored.set('tsk_big', large);
    const heard = nextChange(two, 'acc_b');
    one.publish({ accountId: 'acc_b', record: large });
    assert.deepEqual((await heard).record, large);
  });

  test('work announced on one node wakes the workers of another', async () => {
    const [one, two] = [await openFeed(), await openFeed()];
    const woken = new Promise<void>((resolve) => two.onWork(resolve));
    one.announceWork();
    await woken;
  });

  test('when its connection is cut (as a PostgreSQL restart does) the feed reconnects and asks for a re-read', async () => {
    const [one, two] = [await openFeed(), await openFeed()];
    const resynced = new Promise<void>((resolve) =>
      two.subscribe('acc_c', { onChange: () => {}, onResync: resolve }),
    );
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where datname = current_database() and pid <> pg_backend_pid() and query like 'LISTEN%'`.execute(
      db,
    );
    await resynced;
    const heard = nextChange(two, 'acc_c');
    one.publish({ accountId: 'acc_c', record: record('tsk_2', 30) });
    assert.deepEqual((await heard).record, record('tsk_2', 30));
  });
});

describe('long-poll across nodes', onPostgres, () => {
  let config: Config;
  const cores: Core[] = [];

  before(async () => {
    config = loadConfig({
      ...(await freshTestDataEnv('feed-')),
      ATELIER_LOCAL_LATENCY_MS: '2000',
      ATELIER_DEMO_ACCOUNT: 'false',
      LOG_LEVEL: 'silent',
    });
  });
  after(async () => {
    for (const core of cores) await core.close(500);
    await removeTestData(config);
  });

  test('?wait= on an api node returns the change a worker node made', async () => {
    const api = await createCore(config, { idlePollMs: 100 });
    const worker = await createCore(config, { idlePollMs: 100 });
    cores.push(api, worker);
    const app = await buildApp(api);
    const { account, apiKey } = await api.accounts.create({ email: 'feed@example.test' });
    const generated = await app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { prompt: 'watched from another node', imageSize: '1K' },
    });
    const taskId = generated.json().task_ids[0] as string;
    const before = (await api.tasks.findForAccount(account.id, taskId))?.status;
    assert.equal(before, 'queued');
    // The api node runs no engine: only the worker node moves the task on.
    worker.engine.start();
    const response = await app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskId}?wait=60`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const moved = response.json() as TaskRecord;
    assert.ok(moved.status !== 'queued' || moved.progress > 0, JSON.stringify(moved));
    await app.close();
  });
});
