import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WRONG_CREDENTIALS } from '../../src/edges/website/routes.js';
import { SESSION_COOKIE } from '../../src/edges/website/sessions.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { TEST_ORIGIN as ORIGIN, sessionCookieOf } from '../support/website-session.js';
import { PASSWORD, signIn } from './website-sign-in.js';

describe('website sessions', () => {
  let t: TestApp;
  let email: string;

  before(async () => {
    t = await createTestApp({ env: { ATELIER_TRUST_PROXY: 'true' } });
    ({ email } = await t.createAccount(undefined, { password: PASSWORD, tier: 'starter' }));
  });
  after(() => t.close());

  test('sign-in sets an HttpOnly, SameSite=Lax session cookie that works on /web/api and /api/v1', async () => {
    const response = await signIn(t, email.toUpperCase());
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      email,
      tier: 'starter',
      operator: false,
      passwordChangeRequired: false,
    });
    const setCookie = String([response.headers['set-cookie']].flat()[0]);
    assert.match(setCookie, /; HttpOnly/);
    assert.match(setCookie, /; SameSite=Lax/);
    assert.match(setCookie, /; Path=\//);
    assert.doesNotMatch(setCookie, /; Secure/, 'plain http: no Secure');
    const cookie = sessionCookieOf(response);

    const session = await t.app.inject({ method: 'GET', url: '/web/api/session', headers: { cookie } });
    assert.equal(session.statusCode, 200);
    assert.equal(session.headers['cache-control'], 'no-store');
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: { cookie } });
    assert.equal(status.statusCode, 200);
    assert.equal(status.json().email, email);
  });

  test('the cookie is Secure behind https', async () => {
    const response = await signIn(t, email, PASSWORD, {
      'x-forwarded-proto': 'https',
      origin: 'https://localhost:80',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String([response.headers['set-cookie']].flat()[0]), /; Secure/);
  });

  test('a wrong password and an unknown email get the same answer', async () => {
    const wrong = await signIn(t, email, 'not the password');
    const unknown = await signIn(t, 'nobody@example.test', 'not the password');
    assert.equal(assertError(wrong, 401, 'unauthorized'), WRONG_CREDENTIALS);
    assert.equal(assertError(unknown, 401, 'unauthorized'), WRONG_CREDENTIALS);
    assert.equal(wrong.headers['set-cookie'], undefined);
  });

  test('a bad body is a 400 naming the field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: ORIGIN },
      payload: { email },
    });
    assert.match(assertError(response, 400, 'invalid_request'), /password/);
  });

  test('the session is rotated at sign-in: the previous token of that browser stops working', async () => {
    const first = sessionCookieOf(await signIn(t, email));
    const second = sessionCookieOf(await signIn(t, email, PASSWORD, { cookie: first }));
    assert.notEqual(first, second);
    const old = await t.app.inject({ method: 'GET', url: '/web/api/session', headers: { cookie: first } });
    assert.equal(old.statusCode, 200);
    assert.deepEqual(old.json(), { signedIn: false });
    const fresh = await t.app.inject({ method: 'GET', url: '/web/api/session', headers: { cookie: second } });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.json().signedIn, true);
  });

  test('sessions are stored as hashes, never as the cookie value', async () => {
    const cookie = sessionCookieOf(await signIn(t, email));
    const token = cookie.split('=')[1] as string;
    const rows = await t.core.resources.db.selectFrom('sessions').selectAll().execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((row) => row.id_hash !== token && /^[0-9a-f]{64}$/.test(row.id_hash)));
  });

  test('sign-out ends the session and clears the cookie', async () => {
    const cookie = sessionCookieOf(await signIn(t, email));
    const out = await t.app.inject({
      method: 'DELETE',
      url: '/web/api/session',
      headers: { cookie, origin: ORIGIN },
    });
    assert.equal(out.statusCode, 204);
    assert.match(
      String([out.headers['set-cookie']].flat()[0]),
      new RegExp(`^${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
    );
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: { cookie } });
    assertError(after, 401, 'unauthorized');
  });

  test('an expired or forged cookie is simply not a session', async () => {
    const forged = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/status',
      headers: { cookie: `${SESSION_COOKIE}=${'A'.repeat(43)}` },
    });
    assertError(forged, 401, 'unauthorized');
    const cookie = sessionCookieOf(await signIn(t, email));
    await t.core.resources.db.updateTable('sessions').set({ expires_at: 1 }).execute();
    const expired = await t.app.inject({ method: 'GET', url: '/web/api/session', headers: { cookie } });
    assert.deepEqual(expired.json(), { signedIn: false }, 'an expired session reads as signed out');
    const none = await t.app.inject({ method: 'GET', url: '/web/api/session' });
    assert.equal(none.statusCode, 200, 'not being signed in is an answer, not an error');
    assert.deepEqual(none.json(), { signedIn: false });
  });
});

describe('CSRF defence on cookie-authenticated requests', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;

  before(async () => {
    t = await createTestApp({ env: { ATELIER_TRUST_PROXY: 'true' } });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signIn(t, account.email));
  });
  after(() => t.close());

  const generate = (headers: Record<string, string>, url = '/api/v1/generate') =>
    t.app.inject({ method: 'POST', url, headers, payload: { prompt: 'csrf probe', imageSize: '1K' } });
  const historyTotal = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })).json()
      .total as number;

  test('another origin is refused with 403 forbidden, and nothing is created', async () => {
    const before = await historyTotal();
    for (const url of ['/api/v1/generate', '/v1/generate', '/web/api/generate']) {
      const response = await generate({ cookie, origin: 'http://127.0.0.1:9999' }, url);
      assert.match(assertError(response, 403, 'forbidden'), /origin http:\/\/127\.0\.0\.1:9999/);
    }
    const rotate = await t.app.inject({
      method: 'POST',
      url: '/web/api/account/api-key',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assertError(rotate, 403, 'forbidden');
    assert.equal(await historyTotal(), before);
  });

  test('no Origin and no Referer is refused; a same-origin Referer is accepted', async () => {
    assertError(await generate({ cookie }), 403, 'forbidden');
    assertError(await generate({ cookie, origin: 'null' }), 403, 'forbidden');
    assertError(await generate({ cookie, referer: 'https://evil.example/page' }), 403, 'forbidden');
    const viaReferer = await generate({ cookie, referer: `${ORIGIN}/` });
    assert.equal(viaReferer.statusCode, 200, viaReferer.body);
  });

  test('the origin the request was addressed to counts as our own (reverse proxies, other host names)', async () => {
    const response = await generate({
      cookie,
      host: 'atelier.internal:3000',
      origin: 'http://atelier.internal:3000',
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('safe methods and bearer-authenticated calls are not affected', async () => {
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/status',
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(read.statusCode, 200);
    const api = await generate({ ...bearer(apiKey), cookie, origin: 'https://evil.example' });
    assert.equal(api.statusCode, 200, api.body);
  });

  test('sign-in itself is checked (no login CSRF)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: 'https://evil.example' },
      payload: { email: 'a@b.c', password: 'x' },
    });
    assertError(response, 403, 'forbidden');
  });
});

describe('sign-in throttling', () => {
  let t: TestApp;
  let email: string;
  // The throttle's waits run on this clock: a slow hash on a busy machine never ends one early.
  let now = Date.now();

  before(async () => {
    t = await createTestApp({
      env: { ATELIER_TRUST_PROXY: '1' },
      startEngine: false,
      overrides: { clock: { now: () => now } },
    });
    ({ email } = await t.createAccount(undefined, { password: PASSWORD }));
  });
  after(() => t.close());

  test('after three failures further attempts wait, even with the right password; other addresses are not held up', async () => {
    for (let i = 0; i < 3; i++) assertError(await signIn(t, email, 'wrong'), 401, 'unauthorized');
    const fourth = await signIn(t, email, 'wrong');
    assert.match(
      assertError(fourth, 429, 'too_many_requests'),
      /Email or password is incorrect\. Too many failed/,
    );
    assert.equal(fourth.headers['retry-after'], '1');
    const right = await signIn(t, email);
    assert.match(assertError(right, 429, 'too_many_requests'), /try again in 1 second/);
    const elsewhere = await signIn(t, email, PASSWORD, { 'x-forwarded-for': '203.0.113.7' });
    assert.equal(elsewhere.statusCode, 200, 'the key is email + client address');
    now += 1000;
    assert.equal((await signIn(t, email)).statusCode, 200, 'after the wait the right password works');
  });
});

describe('sign-in throttling without a trusted proxy', () => {
  test('a forged X-Forwarded-For does not dodge the throttle', async () => {
    const stopped = Date.now(); // the wait never runs out during the test, however slow the hashing
    const t = await createTestApp({ startEngine: false, overrides: { clock: { now: () => stopped } } });
    try {
      const { email } = await t.createAccount(undefined, { password: PASSWORD });
      for (let i = 0; i < 3; i++) assertError(await signIn(t, email, 'wrong'), 401, 'unauthorized');
      assertError(await signIn(t, email, 'wrong'), 429, 'too_many_requests');
      const forged = await signIn(t, email, PASSWORD, { 'x-forwarded-for': '203.0.113.9' });
      assertError(forged, 429, 'too_many_requests');
    } finally {
      await t.close();
    }
  });
});
