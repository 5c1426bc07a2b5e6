import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/base/runtime/clock.js';
import { randomIds } from '../../src/base/runtime/ids.js';
import { createAccountsRepository } from '../../src/capabilities/accounts/accounts-repository.js';
import { createAssetsRepository } from '../../src/capabilities/assets/index.js';
import { loadCatalog } from '../../src/capabilities/catalog/catalog.js';
import type { OnTaskFinished } from '../../src/capabilities/tasks/task-finish.js';
import { createTasksRepository } from '../../src/capabilities/tasks/tasks-repository.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { createGenerationsRepository } from '../../src/use-cases/generations/generations-repository.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// A write's own hook (`withFinal`: a result's asset) commits with the write that ends the task, in
// its transaction: never without the task reading completed, never for a write that lost its lease
// or ended nothing, and a hook that throws takes the final write back with it. On SQLite the final
// writes of one turn share a commit: one write's failing hook costs the others nothing.
let config: Config;
let db: Db;

before(async () => {
  config = loadConfig({ ...(await freshTestDataEnv('final-hooks-')), LOG_LEVEL: 'silent' });
  db = await openDatabase(config.databaseUrl);
});
after(async () => {
  await db.destroy();
  await removeTestData(config);
});

const OWNER = 'worker-a';

async function leasedTasks(count: number) {
  const accounts = createAccountsRepository({ db, clock: systemClock, ids: randomIds });
  const account = await accounts.insert({
    email: `hooks-${randomIds.next('acc')}@example.test`,
    tier: 'standard',
    passwordHash: null,
    apiKeyHash: `hash-${randomIds.next('key')}`,
    apiKeyHint: 'hint',
  });
  assert.ok(account);
  const model = loadCatalog(undefined, ['local']).models[0];
  assert.ok(model);
  const created = await createGenerationsRepository({ db, clock: systemClock, ids: randomIds }).create({
    accountId: account.id,
    source: 'api',
    request: { prompt: 'hooks', model, mode: 'text', aspect: '1:1', imageSize: '1K', count, imageUrls: [] },
    refKeys: [],
    deadlineMs: 60_000,
    leaseOwner: OWNER,
    leaseMs: 60_000,
  });
  return { accountId: account.id, generationId: created.generationId, taskIds: created.taskIds };
}

const assets = () => createAssetsRepository({ db, clock: systemClock, ids: randomIds });

/** The hook a stored result passes: its asset row, in the final write's transaction. */
function assetHook(accountId: string, generationId: string, taskId: string): OnTaskFinished {
  return (trx) =>
    assets().recordResult(trx, {
      accountId,
      generationId,
      taskId,
      blobKey: `results/${taskId}.png`,
      url: `http://127.0.0.1/files/results/${taskId}.png`,
      contentType: 'image/png',
      bytes: Buffer.from(`png of ${taskId}`),
      width: 8,
      height: 8,
    });
}

const completed = (taskId: string) => ({
  status: 'completed' as const,
  progress: 100,
  image_url: `http://127.0.0.1/files/results/${taskId}.png`,
  blob_key: `results/${taskId}.png`,
  finished_at: systemClock.now(),
  lease_owner: null,
  lease_expires_at: null,
});

const assetRows = (taskId: string) =>
  db.selectFrom('assets').select(['id', 'kind', 'sha256']).where('task_id', '=', taskId).execute();
const statusOf = async (taskId: string) =>
  (await db.selectFrom('tasks').select('status').where('id', '=', taskId).executeTakeFirstOrThrow()).status;

test("a result's asset commits with the write that ends the task, and only with it", async () => {
  const { accountId, generationId, taskIds } = await leasedTasks(1);
  const [taskId] = taskIds as [string];
  const tasks = createTasksRepository({ db, clock: systemClock });
  const hook = assetHook(accountId, generationId, taskId);

  // Another worker's write changes nothing, and its hook never runs.
  assert.equal(await tasks.updateLeased(taskId, 'worker-b', completed(taskId), hook), false);
  // A write that does not end the task runs no hook either.
  assert.equal(await tasks.updateLeased(taskId, OWNER, { status: 'in_progress', progress: 40 }, hook), true);
  assert.deepEqual(await assetRows(taskId), []);

  assert.equal(await tasks.updateLeased(taskId, OWNER, completed(taskId), hook), true);
  assert.equal(await statusOf(taskId), 'completed');
  const [asset, ...more] = await assetRows(taskId);
  assert.equal(asset?.kind, 'result');
  assert.equal(asset?.sha256.length, 64);
  assert.deepEqual(more, []);
  // Recorded once per task, whichever attempt stored it first.
  await db.transaction().execute((trx) => hook(trx, {} as Parameters<OnTaskFinished>[1]));
  assert.equal((await assetRows(taskId)).length, 1);
});

test("a hook that throws takes the final write back; the same turn's other final writes commit", async () => {
  const { accountId, generationId, taskIds } = await leasedTasks(3);
  const [failing, first, last] = taskIds as [string, string, string];
  const tasks = createTasksRepository({ db, clock: systemClock });
  const broken: OnTaskFinished = async (trx, task) => {
    await assetHook(accountId, generationId, task.id)(trx, task);
    throw new Error('the hook failed');
  };

  // Asked in one turn: on SQLite they share a transaction, rolled back whole and run again alone.
  const [a, b, c] = await Promise.allSettled([
    tasks.updateLeased(first, OWNER, completed(first), assetHook(accountId, generationId, first)),
    tasks.updateLeased(failing, OWNER, completed(failing), broken),
    tasks.updateLeased(last, OWNER, completed(last), assetHook(accountId, generationId, last)),
  ]);
  assert.deepEqual(a, { status: 'fulfilled', value: true });
  assert.equal(b.status, 'rejected');
  assert.match(String((b as PromiseRejectedResult).reason), /the hook failed/);
  assert.deepEqual(c, { status: 'fulfilled', value: true });

  assert.equal(await statusOf(failing), 'queued');
  assert.deepEqual(await assetRows(failing), []);
  for (const taskId of [first, last]) {
    assert.equal(await statusOf(taskId), 'completed');
    assert.equal((await assetRows(taskId)).length, 1);
  }
  // The lease is still the worker's: a later final write with a working hook ends the task.
  assert.equal(
    await tasks.updateLeased(failing, OWNER, completed(failing), assetHook(accountId, generationId, failing)),
    true,
  );
  assert.equal((await assetRows(failing)).length, 1);
});
