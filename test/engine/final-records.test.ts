import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/base/runtime/clock.js';
import { randomIds } from '../../src/base/runtime/ids.js';
import { createAccountsRepository } from '../../src/capabilities/accounts/accounts-repository.js';
import { loadCatalog } from '../../src/capabilities/catalog/catalog.js';
import { createTasksRepository } from '../../src/capabilities/tasks/tasks-repository.js';
import { createTasksService } from '../../src/capabilities/tasks/tasks-service.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { createGenerationsRepository } from '../../src/use-cases/generations/generations-repository.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// Polls of finished tasks are answered from memory (a final record never changes); unfinished
// ones always from the store; and memory never answers for another account.
let config: Config;
let db: Db;

before(async () => {
  config = loadConfig({ ...(await freshTestDataEnv('final-records-')), LOG_LEVEL: 'silent' });
  db = await openDatabase(config.databaseUrl);
});
after(async () => {
  await db.destroy();
  await removeTestData(config);
});

async function twoTasks() {
  const accounts = createAccountsRepository({ db, clock: systemClock, ids: randomIds });
  const owner = async (email: string) => {
    const account = await accounts.insert({
      email,
      tier: 'standard',
      passwordHash: null,
      apiKeyHash: `hash-${email}`,
      apiKeyHint: 'hint',
    });
    assert.ok(account);
    return account.id;
  };
  const [accountId, otherId] = [await owner('final@example.test'), await owner('other@example.test')];
  const model = loadCatalog(undefined, ['local']).models[0];
  assert.ok(model);
  const { taskIds } = await createGenerationsRepository({ db, clock: systemClock, ids: randomIds }).create({
    accountId,
    source: 'api',
    request: { prompt: 'p', model, mode: 'text', aspect: '1:1', imageSize: '1K', count: 2, imageUrls: [] },
    refKeys: [],
    deadlineMs: 60_000,
    leaseOwner: null,
    leaseMs: 30_000,
  });
  const [ended, running] = taskIds as [string, string];
  return { accountId, otherId, ended, running };
}

/** Changes a stored row behind the repository's back (what no writer of Atelier ever does to a final task). */
const overwriteError = (taskId: string, error: string) =>
  db.updateTable('tasks').set({ error }).where('id', '=', taskId).execute();

/** The service that owns the final-record cache (one per process); cancel is not exercised here. */
const serviceOf = (tasks: ReturnType<typeof createTasksRepository>) =>
  createTasksService({ tasks, engine: { cancel: async () => undefined } });

test('a final record is read once; an unfinished one every time; another account sees neither', async () => {
  const { accountId, otherId, ended, running } = await twoTasks();
  const tasks = createTasksRepository({ db, clock: systemClock });
  const service = serviceOf(tasks);
  const read = async (account: string) =>
    Object.fromEntries(
      (await service.findMany(account, [ended, running, ended])).map((row) => [row.id, row]),
    );

  assert.deepEqual(
    Object.values(await read(accountId)).map((row) => row.status),
    ['queued', 'queued'],
  );
  assert.equal(await tasks.cancelUnfinished(ended, 'stopped'), true);
  // The first read after the end sees it (the record was unfinished: it was not kept).
  assert.equal((await read(accountId))[ended]?.error, 'stopped');

  await overwriteError(ended, 'changed in the store');
  await overwriteError(running, 'changed in the store');
  const again = await read(accountId);
  assert.equal(again[ended]?.error, 'stopped', 'the final record came from memory');
  assert.equal(again[running]?.error, 'changed in the store', 'the unfinished one from the store');

  assert.deepEqual(await read(otherId), {}, 'another account gets nothing, from memory or the store');
  const fresh = serviceOf(createTasksRepository({ db, clock: systemClock }));
  assert.equal(
    (await fresh.findMany(accountId, [ended]))[0]?.error,
    'changed in the store',
    'memory is per process: another one reads the store',
  );
});
