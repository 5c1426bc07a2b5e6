import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { WRONG_CREDENTIALS } from '../../src/edges/website/routes.js';
import { assertError } from '../support/api-helpers.js';
import { legacyPasswordHash } from '../support/password-hashes.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const ORIGIN = 'http://127.0.0.1:8080'; // the test app's public base URL
const PASSWORD = 'correct horse battery';
const FREE_PER_ADDRESS = 3; // DEFAULT_LOGIN_THROTTLE.perAddress.freeFailures
const FREE_PER_EMAIL = 10; // DEFAULT_LOGIN_THROTTLE.perEmail.freeFailures

/**
 * A test app whose clock stands still: the throttle's waits never run out during a test, however
 * slowly this machine hashes (its budgets are what is measured, not the time).
 */
function appWithStoppedClock(env: Record<string, string>) {
  const now = Date.now();
  return createTestApp({ env, startEngine: false, overrides: { clock: { now: () => now } } });
}

function signIn(t: TestApp, email: string, password: string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/web/api/session',
    headers: { origin: ORIGIN, ...headers },
    payload: { email, password },
  });
}

/** Whether the password of this answer was checked: a 200, a 401, or a 429 that says it was wrong. */
function wasChecked(response: LightMyRequestResponse): boolean {
  if (response.statusCode === 200 || response.statusCode === 401) return true;
  const message = assertError(response, 429, 'too_many_requests');
  return message.startsWith(WRONG_CREDENTIALS);
}

describe('sign-in guesses sent at once', () => {
  let t: TestApp;

  before(async () => {
    // Every guess finds a place in the hashing queue: the throttle alone decides here.
    t = await appWithStoppedClock({ ATELIER_TRUST_PROXY: '1', ATELIER_PASSWORD_HASH_QUEUE: '1000' });
  });
  after(() => t.close());

  test('150 wrong guesses at once from one address: only the free ones are checked, then the right password waits too', async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const guesses = await Promise.all(Array.from({ length: 150 }, (_, i) => signIn(t, email, `wrong ${i}`)));
    const checked = guesses.filter(wasChecked).length;
    t.core.logger.info({ checked, sent: 150 }, 'guesses checked');
    // The free attempts, and the one that opens the first wait (its answer says both).
    assert.equal(checked, FREE_PER_ADDRESS + 1, `${checked} of 150 guesses were checked`);
    const right = await signIn(t, email, PASSWORD);
    assert.match(assertError(right, 429, 'too_many_requests'), /^Too many failed sign-in attempts/);
    assert.ok(Number(right.headers['retry-after']) >= 1);
  });

  test('150 wrong guesses at once from 150 addresses: the per-e-mail budget bounds them', async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const guesses = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        signIn(t, email, `wrong ${i}`, { 'x-forwarded-for': `198.51.100.${i + 1}` }),
      ),
    );
    const checked = guesses.filter(wasChecked).length;
    assert.equal(checked, FREE_PER_EMAIL + 1, `${checked} of 150 guesses were checked`);
    const right = await signIn(t, email, PASSWORD, { 'x-forwarded-for': '203.0.113.200' });
    assertError(right, 429, 'too_many_requests');
  });
});

describe('password hashing on its own pool', () => {
  test('a sign-in refused because the node is busy hashing is 429 and spends none of its budget', async () => {
    const t = await appWithStoppedClock({
      ATELIER_PASSWORD_HASH_CONCURRENCY: '1',
      ATELIER_PASSWORD_HASH_QUEUE: '0',
    });
    try {
      const emails = ['busy1@example.test', 'busy2@example.test'];
      // Two at once: one takes the only slot (a full-size hash), the other finds no place.
      const answers = await Promise.all(emails.map((email) => signIn(t, email, 'wrong')));
      const refused = answers.findIndex((answer) => answer.statusCode === 429);
      assert.notEqual(refused, -1, answers.map((answer) => answer.statusCode).join());
      const busy = answers[refused] as LightMyRequestResponse;
      assert.match(assertError(busy, 429, 'too_many_requests'), /Too many passwords are being checked/);
      assert.equal(busy.headers['retry-after'], '1');
      assertError(answers[1 - refused] as LightMyRequestResponse, 401, 'unauthorized');
      const counted = async (email: string) =>
        (
          await t.core.resources.db
            .selectFrom('sign_in_failures')
            .select('key')
            .where('key', 'like', `%${email}%`)
            .execute()
        ).length;
      assert.equal(await counted(emails[refused] as string), 0, 'the refused attempt was not counted');
      assert.equal(
        await counted(emails[1 - refused] as string),
        2,
        'the checked one was (per address and per email)',
      );
    } finally {
      await t.close();
    }
  });
});

describe('the client address behind trusted proxies', () => {
  /** Four wrong guesses, each with a different client-written first entry, then a fifth. */
  async function guessWithSpoofedEntries(t: TestApp, email: string, real: string) {
    for (let i = 0; i < FREE_PER_ADDRESS + 1; i++) {
      await signIn(t, email, 'wrong', { 'x-forwarded-for': `10.9.9.${i}, ${real}` });
    }
    return signIn(t, email, PASSWORD, { 'x-forwarded-for': `10.9.9.99, ${real}` });
  }

  for (const setting of ['1', '127.0.0.0/8', 'loopback,10.0.0.0/8']) {
    test(`ATELIER_TRUST_PROXY=${setting}: "X-Forwarded-For: spoofed, real" is throttled as "real"`, async () => {
      const t = await appWithStoppedClock({ ATELIER_TRUST_PROXY: setting });
      try {
        const { email } = await t.createAccount(undefined, { password: PASSWORD });
        const fifth = await guessWithSpoofedEntries(t, email, '203.0.113.5');
        assertError(fifth, 429, 'too_many_requests');
        // Another real client (the proxy's entry differs) is not held up.
        const other = await signIn(t, email, PASSWORD, { 'x-forwarded-for': '203.0.113.5, 203.0.113.6' });
        assert.equal(other.statusCode, 200, other.body);
      } finally {
        await t.close();
      }
    });
  }

  test('ATELIER_TRUST_PROXY=true is one hop: the spoofed entry is not the address either', async () => {
    const t = await appWithStoppedClock({ ATELIER_TRUST_PROXY: 'true' });
    try {
      const { email } = await t.createAccount(undefined, { password: PASSWORD });
      assertError(await guessWithSpoofedEntries(t, email, '203.0.113.7'), 429, 'too_many_requests');
      assert.equal(t.core.config.trustProxy, 1);
    } finally {
      await t.close();
    }
  });
});

describe('password storage', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('an account without a password cannot be signed in to, and the answer is a wrong password', async () => {
    const { email } = await t.createAccount();
    for (const password of ['', 'x', PASSWORD]) {
      const response = await signIn(t, email, password);
      assert.equal(assertError(response, 401, 'unauthorized'), WRONG_CREDENTIALS);
    }
  });

  test('a hash stored with N=16384 signs in and is replaced by an N=131072 one', async () => {
    const { email, id } = await t.createAccount(undefined, { password: PASSWORD });
    const old = await legacyPasswordHash(PASSWORD, { N: 16384, r: 8, p: 1 });
    await t.core.resources.db
      .updateTable('accounts')
      .set({ password_hash: old })
      .where('id', '=', id)
      .execute();
    const storedHash = async () =>
      (
        await t.core.resources.db
          .selectFrom('accounts')
          .select('password_hash')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).password_hash;

    assert.equal((await signIn(t, email, PASSWORD)).statusCode, 200);
    const rehashed = await storedHash();
    assert.match(String(rehashed), /^scrypt\$131072\$8\$1\$/);
    assert.equal((await signIn(t, email, PASSWORD)).statusCode, 200, 'the new hash works');
    assert.equal(await storedHash(), rehashed, 'a current hash is left alone');
    assertError(await signIn(t, email, 'not the password'), 401, 'unauthorized');
  });
});
