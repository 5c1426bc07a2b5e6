import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../../src/base/runtime/clock.js';
import { randomIds } from '../../src/base/runtime/ids.js';
import { createSecretBox } from '../../src/base/secrets/secret-box.js';
import {
  type Account,
  createAccountsRepository,
} from '../../src/capabilities/accounts/accounts-repository.js';
import { createAccountsService } from '../../src/capabilities/accounts/accounts-service.js';
import { ensureDemoAccount } from '../../src/capabilities/accounts/demo-account.js';
import { createAssetsRepository } from '../../src/capabilities/assets/assets-repository.js';
import { loadCatalog } from '../../src/capabilities/catalog/catalog.js';
import { createIdempotencyRepository } from '../../src/capabilities/idempotency/idempotency-repository.js';
import { createTasksRepository } from '../../src/capabilities/tasks/tasks-repository.js';
import { createWebhooksRepository } from '../../src/capabilities/webhooks/webhooks-repository.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { createProcessOwner } from '../../src/infra/jobs/process-owner.js';
import { type Db, dialectOf, openDatabase } from '../../src/infra/store/database.js';
import type { WebhookDeliveriesTable } from '../../src/infra/store/schema/webhooks.js';
import { createGenerationsRepository } from '../../src/use-cases/generations/generations-repository.js';
import { freshTestDataEnv, removeTestData, testStore } from '../support/test-database.js';

// Runs on the store ATELIER_TEST_STORE names (npm test runs it on both SQLite and PostgreSQL).
const store = testStore();

async function freshConfig(): Promise<Config> {
  return loadConfig({ ...(await freshTestDataEnv('store-', { empty: true })), LOG_LEVEL: 'silent' });
}

async function migrationNames(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

/** Inserts an account through the repository; throws when its email is taken. */
async function insertAccount(db: Db, email: string): Promise<Account> {
  const account = await createAccountsRepository({ db, clock: systemClock, ids: randomIds }).insert({
    email,
    tier: 'standard',
    passwordHash: null,
    apiKeyHash: `hash-${randomIds.next('acc')}`,
    apiKeyHint: 'hint',
  });
  if (!account) throw new Error(`email ${email} is taken`);
  return account;
}

describe(`store on ${store}`, () => {
  let config: Config;
  let db: Db;

  before(async () => {
    config = await freshConfig();
    db = await openDatabase(config.databaseUrl);
  });
  after(async () => {
    await db.destroy();
    await removeTestData(config);
  });

  test('dialectOf tells the store, on the database and inside a transaction', async () => {
    assert.equal(dialectOf(db), store);
    await db.transaction().execute(async (trx) => assert.equal(dialectOf(trx), store));
  });

  test('migrations ran once each; opening the database again runs none', async () => {
    const names = await migrationNames(db);
    assert.ok(names.length >= 5);
    assert.equal(new Set(names).size, names.length);
    const again = await openDatabase(config.databaseUrl);
    try {
      assert.deepEqual(await migrationNames(again), names);
    } finally {
      await again.destroy();
    }
  });

  test('repository round trips return numbers (timestamps, counts, aggregates), not strings', async () => {
    const deps = { db, clock: systemClock, ids: randomIds };
    const accounts = createAccountsRepository(deps);
    const account = await insertAccount(db, 'numbers@example.test');
    assert.equal(await accounts.count(), 1);
    const [listed] = await accounts.list();
    assert.equal(typeof listed?.createdAt, 'number');
    assert.equal(listed?.createdAt, account.createdAt);

    const model = loadCatalog(undefined, ['local']).models[0];
    assert.ok(model);
    const generations = createGenerationsRepository(deps);
    const { generationId, taskIds } = await generations.create({
      accountId: account.id,
      source: 'api',
      request: {
        prompt: 'a NUL \u0000 is stored, not refused',
        model,
        mode: 'text',
        aspect: '1:1',
        imageSize: '1K',
        count: 2,
        imageUrls: [],
      },
      refKeys: [],
      deadlineMs: 60_000,
      leaseOwner: null,
      leaseMs: 30_000,
    });
    const page = await generations.page(account.id, 1, 20);
    assert.equal(page.total, 1);
    assert.equal(typeof page.rows[0]?.created_at, 'number');

    const tasks = createTasksRepository(deps);
    const rows = await tasks.findManyForAccount(account.id, taskIds);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      for (const column of ['created_at', 'next_run_at', 'deadline_at', 'progress', 'idx'] as const) {
        assert.equal(typeof row[column], 'number', column);
      }
      assert.equal(row.generation_id, generationId);
    }
    assert.equal(typeof (await tasks.nextDueAt()), 'number');
    // PostgreSQL text cannot hold U+0000: a lookup with one finds nothing instead of failing.
    assert.equal(await tasks.findForAccount(account.id, 'tsk_\u0000'), undefined);

    await createAssetsRepository(deps).insertUpload({
      accountId: account.id,
      blobKey: 'k',
      url: 'http://x/files/k',
      contentType: 'image/png',
      bytes: 3_000_000,
      width: 4,
      height: 4,
      sha256: 'abc',
    });
    const aggregate = await db
      .selectFrom('assets')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('bytes').as('bytes'),
        eb.fn.max<number>('created_at').as('latest'),
      ])
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { n: aggregate.n, bytes: aggregate.bytes, latestIsNumber: typeof aggregate.latest },
      { n: 1, bytes: 3_000_000, latestIsNumber: 'number' },
    );
  });

  test('conflicts: insert-or-ignore and the idempotency claim report what happened', async () => {
    const deps = { db, clock: systemClock, ids: randomIds };
    const account = await insertAccount(db, 'conflicts@example.test');
    assert.equal(await insertAccount(db, 'conflicts@example.test').catch(() => 'taken'), 'taken');
    const idempotency = createIdempotencyRepository({ ...deps, owner: createProcessOwner() });
    assert.equal((await idempotency.claim(account.id, 'key-1', 'h')).kind, 'claimed');
    const second = await idempotency.claim(account.id, 'key-1', 'h');
    assert.equal(second.kind, 'existing');
    assert.equal(second.kind === 'existing' && typeof second.row.created_at, 'number');

    const webhooks = createWebhooksRepository(deps);
    const now = Date.now();
    const delivery: WebhookDeliveriesTable = {
      id: randomIds.next('msg'),
      account_id: account.id,
      task_id: 'tsk_x',
      url: 'http://example.test/hook',
      type: 'task.completed',
      payload: '{}',
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_status_code: null,
      last_error: null,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    };
    assert.equal(await webhooks.enqueue(delivery), true);
    assert.equal(await webhooks.enqueue({ ...delivery, id: randomIds.next('msg') }), false);
    assert.equal(await webhooks.nextDueAt(), now);
  });
});

// Nodes share a database only on PostgreSQL; a SQLite file belongs to one process (WAL and the busy
// timeout let the CLI write beside the server).
const onPostgres = { skip: store === 'postgres' ? false : 'PostgreSQL only: SQLite is one node' };

test(
  'several nodes opening one fresh database at once all succeed, and migrate once',
  onPostgres,
  async () => {
    const config = await freshConfig();
    const dbs = await Promise.all(Array.from({ length: 4 }, () => openDatabase(config.databaseUrl)));
    try {
      const [first] = dbs;
      assert.ok(first);
      const names = await migrationNames(first);
      assert.equal(new Set(names).size, names.length);
      for (const db of dbs) assert.deepEqual(await migrationNames(db), names);
      // Each node's first start finds no account: exactly one of them creates the demo account.
      const secrets = createSecretBox(randomBytes(32));
      const created = await Promise.all(
        dbs.map((db) => {
          const repository = createAccountsRepository({ db, clock: systemClock, ids: randomIds });
          const service = createAccountsService({ accounts: repository, secrets, deploymentKeys: {} });
          return ensureDemoAccount(repository, service);
        }),
      );
      assert.equal(created.filter(Boolean).length, 1);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
      await removeTestData(config);
    }
  },
);
