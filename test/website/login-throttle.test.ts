import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLoginThrottle, type SignInAttempt } from '../../src/edges/website/login-throttle.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import { freshTestDataEnv, removeTestData, testStore } from '../support/test-database.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const perAddress = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 };
const options = {
  perAddress,
  perEmail: { freeFailures: 100, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 },
};

/** What an attempt was told: the wait a failure opens (counted) or the wait still to go (refused). */
const told = (attempt: SignInAttempt) =>
  attempt.allowed ? `counted, then ${attempt.waitAfterFailureMs}` : `refused, ${attempt.retryAfterMs}`;

// Runs on the store ATELIER_TEST_STORE names (npm test runs it on both SQLite and PostgreSQL).
describe(`sign-in throttle on ${testStore()}`, () => {
  let config: Config;
  let db: Db;
  let counter = 0;
  const freshEmail = () => `user${++counter}@example.test`;

  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('throttle-')), LOG_LEVEL: 'silent' });
    db = await openDatabase(config.databaseUrl);
  });
  after(async () => {
    await db.destroy();
    await removeTestData(config);
  });

  test('the first attempts are free, then each counted one doubles the wait up to the cap; waiting ones are not counted', async () => {
    const clock = fakeClock();
    const throttle = createLoginThrottle({ db, clock, options });
    const email = freshEmail();
    const attempt = async () => told(await throttle.attempt(email, '192.0.2.1'));
    const free = [];
    for (let i = 0; i < 3; i++) free.push(await attempt());
    assert.deepEqual(free, ['counted, then 0', 'counted, then 0', 'counted, then 0']);
    assert.equal(await attempt(), 'counted, then 1000');
    assert.equal(await attempt(), 'refused, 1000');
    clock.advance(400);
    assert.equal(await attempt(), 'refused, 600', 'a refused attempt opens no further wait');
    clock.advance(600);
    const doubling = [];
    for (const wait of [2000, 4000, 8000, 8000]) {
      doubling.push(await attempt());
      clock.advance(wait);
    }
    assert.deepEqual(doubling, [
      'counted, then 2000',
      'counted, then 4000',
      'counted, then 8000',
      'counted, then 8000',
    ]);
  });

  test('keys are independent; success clears the e-mail; records are forgotten after a quiet period', async () => {
    const clock = fakeClock(2_000_000);
    const throttle = createLoginThrottle({ db, clock, options });
    const [a, b] = [freshEmail(), freshEmail()];
    for (let i = 0; i < 4; i++) await throttle.attempt(a, '192.0.2.1');
    for (let i = 0; i < 4; i++) await throttle.attempt(b, '192.0.2.1');
    assert.equal(told(await throttle.attempt(a, '192.0.2.1')), 'refused, 1000');
    assert.equal(
      told(await throttle.attempt(a, '192.0.2.2')),
      'counted, then 0',
      'another address has its own budget',
    );
    await throttle.succeeded(a, '192.0.2.1');
    assert.equal(
      told(await throttle.attempt(a, '192.0.2.1')),
      'counted, then 0',
      'counting starts over after a success',
    );
    assert.equal(told(await throttle.attempt(b, '192.0.2.1')), 'refused, 1000');
    clock.advance(60_001);
    assert.equal(
      told(await throttle.attempt(b, '192.0.2.1')),
      'counted, then 0',
      'forgotten: counting starts over',
    );
  });

  test('the table is bounded: records past their quiet period are deleted as attempts come in', async () => {
    const clock = fakeClock(3_000_000);
    const throttle = createLoginThrottle({ db, clock, options });
    const stale = freshEmail();
    await throttle.attempt(stale, '192.0.2.1');
    clock.advance(60_001);
    await throttle.attempt(freshEmail(), '192.0.2.1');
    const rows = await db
      .selectFrom('sign_in_failures')
      .select('key')
      .where('key', 'like', `%${stale}%`)
      .execute();
    assert.deepEqual(rows, []);
  });

  test('attempts sent at once from two nodes are counted one by one: of 150, only the free ones and the one opening the wait go through', async () => {
    const clock = fakeClock(4_000_000);
    const nodes = [createLoginThrottle({ db, clock, options }), createLoginThrottle({ db, clock, options })];
    const email = freshEmail();
    const attempts = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        (nodes[i % 2] as (typeof nodes)[number]).attempt(email, '192.0.2.1'),
      ),
    );
    const allowed = attempts.filter((attempt) => attempt.allowed);
    assert.equal(allowed.length, perAddress.freeFailures + 1);
    assert.deepEqual(allowed.map((attempt) => told(attempt)).sort(), [
      'counted, then 0',
      'counted, then 0',
      'counted, then 0',
      'counted, then 1000',
    ]);
    const row = await db
      .selectFrom('sign_in_failures')
      .select('failures')
      .where('key', '=', `address:${email}|192.0.2.1`)
      .executeTakeFirstOrThrow();
    assert.equal(row.failures, 4, 'refused attempts are not counted');
  });

  test('guesses spread over many addresses at once are bounded by the per-e-mail budget', async () => {
    const clock = fakeClock(5_000_000);
    const perEmail = { freeFailures: 10, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000 };
    const throttle = createLoginThrottle({ db, clock, options: { perAddress, perEmail } });
    const email = freshEmail();
    const attempts = await Promise.all(
      Array.from({ length: 150 }, (_, i) => throttle.attempt(email, `198.51.100.${i % 250}`)),
    );
    assert.equal(attempts.filter((attempt) => attempt.allowed).length, perEmail.freeFailures + 1);
  });
});
