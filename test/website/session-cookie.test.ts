import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '../../src/base/contract/website/shared.js';
import { assertError } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { isSignedIn, signedInCookie, signInRequest, TEST_ORIGIN } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const HTTPS_ORIGIN = 'https://atelier.example';

/** Two session cookies in one Cookie header, as a planted cookie with a longer path makes a browser send. */
const twoCookies = (name: string, first: string, second: string) =>
  `${name}=${first.split('=')[1]}; theme=dark; ${name}=${second.split('=')[1]}`;

// Issue 25, item 7: cookie tossing. Over https the session cookie is `__Host-` (the browser only
// takes it Secure, Path=/, host-only, so no sibling subdomain or plain-http page can plant one),
// and a request carrying two session cookies is refused, as two Authorization headers are.
describe('the session cookie over https', () => {
  let t: TestApp;
  let email: string;
  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_PUBLIC_BASE_URL: HTTPS_ORIGIN } });
    ({ email } = await t.createAccount(undefined, { password: PASSWORD }));
  });
  after(() => t.close());

  test('is __Host-atelier_session: Secure, Path=/, no Domain', async () => {
    const response = await signInRequest(t.app, { email, password: PASSWORD }, { origin: HTTPS_ORIGIN });
    assert.equal(response.statusCode, 200, response.body);
    const setCookie = String([response.headers['set-cookie']].flat()[0]);
    assert.match(setCookie, new RegExp(`^${SECURE_SESSION_COOKIE}=[A-Za-z0-9_-]{43};`));
    assert.match(setCookie, /; Secure/);
    assert.match(setCookie, /; Path=\/(;|$)/);
    assert.doesNotMatch(setCookie, /Domain=/i);
    const cookie = setCookie.split(';')[0] as string;
    assert.equal(await isSignedIn(t.app, cookie), true);
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: { cookie } });
    assert.equal(status.statusCode, 200);

    // The plain name is not read over https: a planted `atelier_session` is ignored.
    const plain = `${SESSION_COOKIE}=${cookie.split('=')[1]}`;
    assert.equal(await isSignedIn(t.app, plain), false);

    const out = await t.app.inject({
      method: 'DELETE',
      url: '/web/api/session',
      headers: { cookie, origin: HTTPS_ORIGIN },
    });
    assert.equal(out.statusCode, 204);
    assert.match(
      String([out.headers['set-cookie']].flat()[0]),
      new RegExp(`^${SECURE_SESSION_COOKIE}=;.*Secure`),
    );
  });

  test('a request with two session cookies is refused (401), on every route that reads the session', async () => {
    const victim = await signedInCookie(t.app, { email, password: PASSWORD }, { origin: HTTPS_ORIGIN });
    const other = await t.createAccount(undefined, { password: PASSWORD });
    const planted = await signedInCookie(
      t.app,
      { email: other.email, password: PASSWORD },
      { origin: HTTPS_ORIGIN },
    );
    const cookie = twoCookies(SECURE_SESSION_COOKIE, planted, victim);
    const headers = { cookie, origin: HTTPS_ORIGIN };
    for (const request of [
      { method: 'GET', url: '/web/api/session' },
      { method: 'GET', url: '/web/api/account' },
      { method: 'GET', url: '/api/v1/user/status' },
      { method: 'PUT', url: '/web/api/account/upstream-keys/gemini', payload: { key: 'sk-victims-key' } },
    ] as const) {
      const response = await t.app.inject({ ...request, headers });
      assert.match(assertError(response, 401, 'unauthorized'), /exactly one/, request.url);
    }
    const stored = await t.core.resources.db.selectFrom('upstream_keys').select('account_id').execute();
    assert.deepEqual(stored, [], 'the key went into no account');
  });
});

describe('the session cookie over plain http', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ startEngine: false });
  });
  after(() => t.close());

  test('is atelier_session, not Secure; two of them are refused', async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const response = await signInRequest(t.app, { email, password: PASSWORD });
    const setCookie = String([response.headers['set-cookie']].flat()[0]);
    assert.match(setCookie, new RegExp(`^${SESSION_COOKIE}=`));
    assert.doesNotMatch(setCookie, /; Secure/);
    const cookie = setCookie.split(';')[0] as string;
    const second = await signedInCookie(t.app, { email, password: PASSWORD });
    const refused = await t.app.inject({
      method: 'GET',
      url: '/web/api/account',
      headers: { cookie: twoCookies(SESSION_COOKIE, second, cookie), origin: TEST_ORIGIN },
    });
    assertError(refused, 401, 'unauthorized');
    assert.equal(await isSignedIn(t.app, cookie), true, 'one cookie alone still works');
  });
});
