import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { systemClock } from '../../src/base/runtime/clock.js';
import { randomIds } from '../../src/base/runtime/ids.js';
import { createAccountsRepository } from '../../src/capabilities/accounts/accounts-repository.js';
import { loadCatalog } from '../../src/capabilities/catalog/catalog.js';
import type { OnTaskFinished } from '../../src/capabilities/tasks/task-finish.js';
import { toTaskRecord } from '../../src/capabilities/tasks/task-record.js';
import { createTasksRepository } from '../../src/capabilities/tasks/tasks-repository.js';
import { createWebhooksRepository } from '../../src/capabilities/webhooks/webhooks-repository.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { migration } from '../../src/infra/store/migrations/0023_task_finished_outbox.js';
import { createGenerationsRepository } from '../../src/use-cases/generations/generations-repository.js';
import { freshTestDataEnv, removeTestData, testStore } from '../support/test-database.js';

// Runs on the store ATELIER_TEST_STORE names (npm test runs it on both SQLite and PostgreSQL).
const store = testStore();
const DAY_MS = 24 * 60 * 60 * 1000;

describe(`the webhooks' outbox of finished tasks on ${store}`, () => {
  let config: Config;
  let db: Db;
  const deps = () => ({ db, clock: systemClock, ids: randomIds });

  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('outbox-')), LOG_LEVEL: 'silent' });
    db = await openDatabase(config.databaseUrl);
  });
  after(async () => {
    await db.destroy();
    await removeTestData(config);
  });

  /** A generation of `count` queued tasks, with a callback registered `callbackAgeMs` ago (or none). */
  async function generation(accountId: string, count: number, callbackAgeMs?: number) {
    const model = loadCatalog(undefined, ['local']).models[0];
    assert.ok(model);
    const webhooks = createWebhooksRepository(deps());
    return createGenerationsRepository(deps()).create({
      accountId,
      source: 'api',
      request: { prompt: 'p', model, mode: 'text', aspect: '1:1', imageSize: '1K', count, imageUrls: [] },
      refKeys: [],
      deadlineMs: 60_000,
      leaseOwner: null,
      leaseMs: 30_000,
      alsoInTransaction: async (trx, created) => {
        if (callbackAgeMs === undefined) return;
        await webhooks.recordCallback(trx, {
          generation_id: created.generationId,
          account_id: accountId,
          url: 'http://example.test/hook',
          created_at: Date.now() - callbackAgeMs,
        });
      },
    });
  }

  async function account(email: string) {
    const created = await createAccountsRepository(deps()).insert({
      email,
      tier: 'standard',
      passwordHash: null,
      apiKeyHash: `hash-${randomIds.next('acc')}`,
      apiKeyHint: 'hint',
    });
    assert.ok(created);
    return created;
  }

  const outboxIds = async () =>
    (await db.selectFrom('webhook_outbox').select('task_id').orderBy('task_id').execute()).map(
      (row) => row.task_id,
    );

  test('a task whose generation has a callback gets its finished record in the transaction that ends it', async () => {
    const webhooks = createWebhooksRepository(deps());
    // What each final write's record answered: whether it wrote the task into the outbox.
    const wrote = new Map<string, boolean>();
    const onFinished: OnTaskFinished = async (trx, task) => {
      wrote.set(task.id, await webhooks.recordFinished(trx, task));
    };
    const tasks = createTasksRepository({ ...deps(), onFinished });
    const owner = await account('outbox@example.test');
    const called = await generation(owner.id, 2, 0);
    const silent = await generation(owner.id, 1);
    for (const taskId of [...called.taskIds, ...silent.taskIds])
      assert.equal(await tasks.cancelUnfinished(taskId, 'Canceled'), true);
    assert.deepEqual(
      [...called.taskIds, ...silent.taskIds].map((id) => wrote.get(id)),
      [true, true, false],
    );

    assert.deepEqual(await outboxIds(), [...called.taskIds].sort());
    const missed = await webhooks.findUnenqueuedFinalTasks(Date.now() - DAY_MS, 10);
    assert.equal(missed.length, 2);
    for (const row of missed) {
      const task = await tasks.findForAccount(owner.id, row.task_id);
      assert.ok(task);
      // The record built from the outbox is the task's own record, and the callback comes with it.
      assert.deepEqual(toTaskRecord({ ...row, id: row.task_id }), toTaskRecord(task));
      assert.equal(row.url, 'http://example.test/hook');
      assert.equal(row.finished_at, task.finished_at);
    }
    assert.deepEqual(await webhooks.callbackForTask(called.taskIds[0] ?? ''), {
      url: 'http://example.test/hook',
    });
    assert.equal(await webhooks.callbackForTask(silent.taskIds[0] ?? ''), undefined);
    await webhooks.pruneOutbox(Date.now() + 1);
    assert.deepEqual(await outboxIds(), []);
  });

  test('upgrading backfills the outbox with the finished tasks of callbacks within the sweep window', async () => {
    // The store as it was before migration 0023 (whose upgrade is then run again, alone).
    await db.schema.dropTable('webhook_outbox').execute();
    const tasks = createTasksRepository(deps());
    const owner = await account('upgrade@example.test');
    const recent = await generation(owner.id, 2, DAY_MS);
    const old = await generation(owner.id, 1, 8 * DAY_MS);
    const silent = await generation(owner.id, 1);
    const [finished, unfinished] = recent.taskIds;
    for (const taskId of [finished ?? '', ...old.taskIds, ...silent.taskIds])
      assert.equal(await tasks.cancelUnfinished(taskId, 'Canceled'), true);

    await migration.up(db as unknown as Kysely<unknown>);
    const mine = new Set([...recent.taskIds, ...old.taskIds, ...silent.taskIds]);
    assert.deepEqual(
      (await outboxIds()).filter((id) => mine.has(id)),
      [finished],
    );
    assert.ok(unfinished);
    const missed = await createWebhooksRepository(deps()).findUnenqueuedFinalTasks(
      Date.now() - 7 * DAY_MS,
      10,
    );
    assert.deepEqual(
      missed.filter((row) => mine.has(row.task_id)).map((row) => toTaskRecord({ ...row, id: row.task_id })),
      [{ task_id: finished, status: 'failed', progress: 0, error: 'Canceled' }],
    );
  });
});
