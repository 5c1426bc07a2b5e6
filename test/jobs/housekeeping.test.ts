import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createIdempotencyRepository } from '../../src/capabilities/idempotency/idempotency-repository.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { createHousekeeping } from '../../src/infra/jobs/housekeeping.js';
import { createProcessOwner } from '../../src/infra/jobs/process-owner.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { freshTestDataEnv, removeTestData, testStore } from '../support/test-database.js';

// Runs on the store ATELIER_TEST_STORE names (npm test runs it on both SQLite and PostgreSQL).
describe(`housekeeping on ${testStore()}`, () => {
  let config: Config;
  let db: Db;
  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('housekeeping-')), LOG_LEVEL: 'silent' });
    db = await openDatabase(config.databaseUrl);
    await db
      .insertInto('accounts')
      .values({
        id: 'acc_h',
        email: 'h@example.test',
        tier: 'trial',
        password_hash: null,
        api_key_hash: 'hash_h',
        api_key_hint: 'atl_…h',
        created_at: 0,
        updated_at: 0,
      })
      .execute();
  });
  after(async () => {
    await db.destroy();
    await removeTestData(config);
  });

  test('idempotency records past their 24 h are purged; younger ones stay', async () => {
    let now = 1_000_000_000;
    const clock = { now: () => now };
    const keys = createIdempotencyRepository({ db, clock, owner: createProcessOwner() });
    const old = await keys.claim('acc_h', 'old-key', 'h1');
    assert.equal(old.kind, 'claimed');
    if (old.kind === 'claimed') await keys.complete(old.claim, 200, '{}');
    now += 24 * 60 * 60 * 1000 + 1;
    const young = await keys.claim('acc_h', 'young-key', 'h2');
    if (young.kind === 'claimed') await keys.complete(young.claim, 200, '{}');

    const housekeeping = createHousekeeping({ purge: keys.purgeExpired }, pino({ level: 'silent' }));
    await housekeeping.start();
    await housekeeping.stop();
    const left = await db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(
      left.map((row) => row.key),
      ['young-key'],
    );
  });

  test('a failing job is logged and does not stop the others', async () => {
    const ran: string[] = [];
    const housekeeping = createHousekeeping(
      {
        failing: async () => {
          throw new Error('boom');
        },
        next: async () => ran.push('next'),
      },
      pino({ level: 'silent' }),
    );
    await housekeeping.start();
    await housekeeping.stop();
    assert.deepEqual(ran, ['next']);
  });
});
