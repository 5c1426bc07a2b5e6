import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshTestDataEnv, removeTestData, testStore } from '../../test/support/test-database.js';
import { type Config, loadConfig } from '../config/config.js';
import { type Db, openDatabase } from '../store/database.js';
import { createLoginThrottle } from './login-throttle.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const options = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 };

// Runs on the store ATELIER_TEST_STORE names (npm test runs it on both SQLite and PostgreSQL).
describe(`sign-in throttle on ${testStore()}`, () => {
  let config: Config;
  let db: Db;
  let keyCounter = 0;
  const freshKey = () => `user${++keyCounter}@example.test|127.0.0.1`;

  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('throttle-')), LOG_LEVEL: 'silent' });
    db = await openDatabase(config.databaseUrl);
  });
  after(async () => {
    await db.destroy();
    await removeTestData(config);
  });

  test('the first failures are free, then each one doubles the wait up to the cap', async () => {
    const clock = fakeClock();
    const throttle = createLoginThrottle({ db, clock, options });
    const key = freshKey();
    const free = [];
    for (let i = 0; i < 3; i++) free.push(await throttle.recordFailure(key));
    assert.deepEqual(free, [0, 0, 0]);
    assert.equal(await throttle.retryAfterMs(key), 0);
    assert.equal(await throttle.recordFailure(key), 1000);
    assert.equal(await throttle.retryAfterMs(key), 1000);
    clock.advance(400);
    assert.equal(await throttle.retryAfterMs(key), 600);
    clock.advance(600);
    assert.equal(await throttle.retryAfterMs(key), 0);
    const doubling = [];
    for (let i = 0; i < 4; i++) doubling.push(await throttle.recordFailure(key));
    assert.deepEqual(doubling, [2000, 4000, 8000, 8000]);
  });

  test('keys are independent; success clears one; records are forgotten after a quiet period', async () => {
    const clock = fakeClock(2_000_000);
    const throttle = createLoginThrottle({ db, clock, options });
    const [a, b] = [freshKey(), freshKey()];
    for (let i = 0; i < 4; i++) await throttle.recordFailure(a);
    for (let i = 0; i < 4; i++) await throttle.recordFailure(b);
    assert.ok((await throttle.retryAfterMs(a)) > 0);
    await throttle.recordSuccess(a);
    assert.equal(await throttle.retryAfterMs(a), 0);
    assert.equal(await throttle.recordFailure(a), 0, 'counting starts over after a success');
    assert.ok((await throttle.retryAfterMs(b)) > 0);
    clock.advance(60_001);
    assert.equal(await throttle.retryAfterMs(b), 0);
    assert.equal(await throttle.recordFailure(b), 0, 'forgotten: counting starts over');
  });

  test('the table is bounded: records past their quiet period are deleted as failures come in', async () => {
    const clock = fakeClock(3_000_000);
    const throttle = createLoginThrottle({ db, clock, options });
    const stale = freshKey();
    await throttle.recordFailure(stale);
    clock.advance(60_001);
    await throttle.recordFailure(freshKey());
    const row = await db
      .selectFrom('sign_in_failures')
      .select('key')
      .where('key', '=', stale)
      .executeTakeFirst();
    assert.equal(row, undefined);
  });

  test('two nodes on one database share one budget per key, counting concurrent failures exactly', async () => {
    const clock = fakeClock(4_000_000);
    const nodeA = createLoginThrottle({ db, clock, options });
    const nodeB = createLoginThrottle({ db, clock, options });
    const key = freshKey();
    await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? nodeA : nodeB).recordFailure(key)));
    const row = await db
      .selectFrom('sign_in_failures')
      .select('failures')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    assert.equal(row.failures, 6);
    assert.ok((await nodeA.retryAfterMs(key)) > 0, 'node A sees the failures counted by node B');
    assert.ok((await nodeB.retryAfterMs(key)) > 0);
  });
});
