import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_SESSION_POLICY, hashSessionToken } from '../../src/edges/website/sessions.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { isSignedIn, signedInCookie, signInRequest } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Issue 25, item 5: a session ends after an idle period and at an absolute limit, both bounded;
// "keep me signed in" is longer but bounded too. Time is the injected clock's.
describe('session lifetime', () => {
  let t: TestApp;
  let email: string;
  const clock = { time: Date.UTC(2026, 0, 1), now: () => clock.time };

  before(async () => {
    t = await createTestApp({ startEngine: false, overrides: { clock } });
    ({ email } = await t.createAccount(undefined, { password: PASSWORD }));
  });
  after(() => t.close());

  const lastSeenOf = async (cookie: string) => {
    const row = await t.core.resources.db
      .selectFrom('sessions')
      .select('last_seen_at')
      .where('id_hash', '=', hashSessionToken(cookie.split('=')[1] as string))
      .executeTakeFirstOrThrow();
    return Number(row.last_seen_at);
  };

  test('the policy: 12 h (1 h idle) by default, 30 days (7 days idle) kept signed in', () => {
    assert.deepEqual(DEFAULT_SESSION_POLICY, {
      standard: { absoluteMs: 12 * HOUR, idleMs: HOUR },
      persistent: { absoluteMs: 30 * DAY, idleMs: 7 * DAY },
      touchEveryMs: MINUTE,
    });
  });

  test('a standard session is a browser-session cookie that ends after an hour unused', async () => {
    const response = await signInRequest(t.app, { email, password: PASSWORD });
    const setCookie = String([response.headers['set-cookie']].flat()[0]);
    assert.doesNotMatch(setCookie, /Expires=|Max-Age=/i, 'no expiry: it ends with the browser');
    const cookie = setCookie.split(';')[0] as string;
    clock.time += HOUR - MINUTE;
    assert.equal(await isSignedIn(t.app, cookie), true, 'used within the hour');
    clock.time += HOUR - MINUTE;
    assert.equal(await isSignedIn(t.app, cookie), true, 'each use renews it');
    clock.time += HOUR;
    assert.equal(await isSignedIn(t.app, cookie), false, 'an hour unused ends it');
    clock.time -= HOUR;
    assert.equal(await isSignedIn(t.app, cookie), false, 'for good: the row is gone');
  });

  test('a standard session in constant use still ends 12 hours after sign-in', async () => {
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    for (let used = 0; used < 11; used++) {
      clock.time += HOUR - MINUTE;
      assert.equal(await isSignedIn(t.app, cookie), true);
    }
    clock.time += HOUR;
    assert.equal(await isSignedIn(t.app, cookie), false);
  });

  test('last use is written at most once a minute, not on every request', async () => {
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    const signedInAt = clock.time;
    for (let i = 0; i < 5; i++) {
      clock.time += 10 * 1000;
      assert.equal(await isSignedIn(t.app, cookie), true);
    }
    assert.equal(await lastSeenOf(cookie), signedInAt, 'five requests within 50 s wrote nothing');
    clock.time += 10 * 1000;
    assert.equal(await isSignedIn(t.app, cookie), true);
    assert.equal(await lastSeenOf(cookie), clock.time, 'the first request a minute on renews it');
  });

  test('"keep me signed in": a 30-day cookie, 7 days idle, ended at 30 days whatever the use', async () => {
    const response = await signInRequest(t.app, { email, password: PASSWORD, remember: true });
    assert.equal(response.statusCode, 200, response.body);
    const setCookie = String([response.headers['set-cookie']].flat()[0]);
    const expires = /Expires=([^;]+)/.exec(setCookie)?.[1];
    assert.equal(Date.parse(String(expires)), Math.floor((clock.time + 30 * DAY) / 1000) * 1000);
    const cookie = setCookie.split(';')[0] as string;

    clock.time += 7 * DAY - MINUTE;
    assert.equal(await isSignedIn(t.app, cookie), true, 'used within the week');
    for (let week = 0; week < 3; week++) {
      clock.time += 7 * DAY - MINUTE;
      assert.equal(await isSignedIn(t.app, cookie), true);
    }
    clock.time += 2 * DAY + 5 * MINUTE;
    assert.equal(await isSignedIn(t.app, cookie), false, '30 days after sign-in it ends');

    const idle = await signedInCookie(t.app, { email, password: PASSWORD, remember: true });
    clock.time += 7 * DAY;
    assert.equal(await isSignedIn(t.app, idle), false, 'a week unused ends it');
  });

  test('remember must be a boolean', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: 'http://127.0.0.1:8080' },
      payload: { email, password: PASSWORD, remember: 'yes' },
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error.message, /remember/);
  });
});
