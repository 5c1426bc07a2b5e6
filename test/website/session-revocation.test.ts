import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/edges/cli/main.js';
import { ACCOUNT_DISABLED } from '../../src/edges/http/authentication.js';
import { WRONG_PASSWORD } from '../../src/edges/website/credential-routes.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import {
  isSignedIn,
  sessionCookieOf,
  signedInCookie,
  signInRequest,
  TEST_ORIGIN,
} from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple battery horse';

// Issue 25, item 4: what ends sessions (a password change, sign out everywhere, disabling the
// account) and what asks for the password again (a password change, an API key rotation).
describe('sessions end with what should end them', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ startEngine: false });
  });
  after(() => t.close());

  const post = (url: string, cookie: string, payload?: object) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, origin: TEST_ORIGIN },
      ...(payload ? { payload } : {}),
    });

  test("a password change ends the account's other sessions; this browser gets a new one", async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const laptop = await signedInCookie(t.app, { email, password: PASSWORD });
    const phone = await signedInCookie(t.app, { email, password: PASSWORD });

    const wrong = await post('/web/api/account/password', laptop, {
      current_password: 'not the password',
      new_password: NEW_PASSWORD,
    });
    assert.equal(assertError(wrong, 403, 'forbidden'), WRONG_PASSWORD);
    const short = await post('/web/api/account/password', laptop, {
      current_password: PASSWORD,
      new_password: 'short',
    });
    assert.match(assertError(short, 400, 'invalid_request'), /new_password/);
    assert.equal(await isSignedIn(t.app, phone), true, 'refused changes end nothing');

    const changed = await post('/web/api/account/password', laptop, {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assert.equal(changed.statusCode, 204, changed.body);
    const renewed = sessionCookieOf(changed);
    assert.notEqual(renewed, laptop);
    assert.equal(await isSignedIn(t.app, phone), false, 'the other session ended');
    assert.equal(await isSignedIn(t.app, laptop), false, 'the old token of this browser too');
    assert.equal(await isSignedIn(t.app, renewed), true, 'this browser stays signed in');
    assertError(await signInRequest(t.app, { email, password: PASSWORD }), 401, 'unauthorized');
    assert.equal((await signInRequest(t.app, { email, password: NEW_PASSWORD })).statusCode, 200);
  });

  test('sign out everywhere ends every session of the account, and only of that account', async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const other = await t.createAccount(undefined, { password: PASSWORD });
    const one = await signedInCookie(t.app, { email, password: PASSWORD });
    const two = await signedInCookie(t.app, { email, password: PASSWORD, remember: true });
    const bystander = await signedInCookie(t.app, { email: other.email, password: PASSWORD });

    const out = await t.app.inject({
      method: 'DELETE',
      url: '/web/api/sessions',
      headers: { cookie: one, origin: TEST_ORIGIN },
    });
    assert.equal(out.statusCode, 204, out.body);
    assert.match(String([out.headers['set-cookie']].flat()[0]), /^atelier_session=;/);
    assert.equal(await isSignedIn(t.app, one), false);
    assert.equal(await isSignedIn(t.app, two), false);
    assert.equal(await isSignedIn(t.app, bystander), true);
    const anonymous = await t.app.inject({
      method: 'DELETE',
      url: '/web/api/sessions',
      headers: { origin: TEST_ORIGIN },
    });
    assertError(anonymous, 401, 'unauthorized');
  });

  test('rotating the API key asks for the password again', async () => {
    const { email, apiKey } = await t.createAccount(undefined, { password: PASSWORD });
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    assertError(await post('/web/api/account/api-key', cookie), 400, 'invalid_request');
    const wrong = await post('/web/api/account/api-key', cookie, { password: 'not the password' });
    assert.equal(assertError(wrong, 403, 'forbidden'), WRONG_PASSWORD);
    const status = () => t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal((await status()).statusCode, 200, 'refused rotations leave the key working');

    const rotated = await post('/web/api/account/api-key', cookie, { password: PASSWORD });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assertError(await status(), 401, 'invalid_api_key');
    const fresh = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/status',
      headers: bearer(rotated.json().api_key),
    });
    assert.equal(fresh.statusCode, 200);
  });

  test('wrong passwords at re-authentication are throttled like sign-ins', async () => {
    const { email } = await t.createAccount(undefined, { password: PASSWORD });
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    let last = await post('/web/api/account/api-key', cookie, { password: 'wrong 0' });
    for (let i = 1; i < 10 && last.statusCode !== 429; i++) {
      last = await post('/web/api/account/api-key', cookie, { password: `wrong ${i}` });
    }
    assertError(last, 429, 'too_many_requests');
    assert.ok(Number(last.headers['retry-after']) > 0);
  });

  test('a disabled account: its key is refused, its sessions end, it cannot sign in; enabling brings back the key only', async () => {
    const { email, apiKey, id } = await t.createAccount(undefined, { password: PASSWORD });
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    const status = () => t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal((await status()).statusCode, 200);
    assert.equal((await status()).statusCode, 200, 'the key is now kept in memory');

    await t.core.accounts.disable(id);
    assert.equal(assertError(await status(), 401, 'invalid_api_key'), ACCOUNT_DISABLED);
    assert.equal(await isSignedIn(t.app, cookie), false);
    const signIn = await signInRequest(t.app, { email, password: PASSWORD });
    assert.equal(assertError(signIn, 403, 'forbidden'), ACCOUNT_DISABLED);
    assert.equal(signIn.headers['set-cookie'], undefined);

    await t.core.accounts.enable(id);
    assert.equal((await status()).statusCode, 200, 'the same key works again');
    assert.equal(await isSignedIn(t.app, cookie), false, 'the old session stays ended');
    assert.equal((await signInRequest(t.app, { email, password: PASSWORD })).statusCode, 200);
  });

  test('the CLI (accounts disable / enable) reaches the running server at once', async () => {
    const { email, apiKey } = await t.createAccount(undefined, { password: PASSWORD });
    const cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    const status = () => t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal((await status()).statusCode, 200);
    const cli = async (...argv: string[]) => {
      const lines: string[] = [];
      const env = {
        LOG_LEVEL: 'silent',
        ATELIER_DEMO_ACCOUNT: 'false',
        ATELIER_DATA_DIR: t.dataDir,
        ATELIER_DATABASE_URL: t.core.config.databaseUrl,
      };
      const code = await runCli(argv, { env, out: (line) => lines.push(line), err: () => {} });
      assert.equal(code, 0, lines.join('\n'));
      return lines.join('\n');
    };
    const heard = t.core.accountChanges.heard();
    assert.deepEqual(JSON.parse(await cli('accounts', 'disable', '--email', email, '--json')), {
      email,
      disabled: true,
    });
    await heard;
    assert.equal(assertError(await status(), 401, 'invalid_api_key'), ACCOUNT_DISABLED);
    assert.equal(await isSignedIn(t.app, cookie), false);
    const listed = JSON.parse(await cli('accounts', 'list', '--json')) as Array<{
      email: string;
      disabled: boolean;
    }>;
    assert.equal(listed.find((row) => row.email === email)?.disabled, true);

    const reenabled = t.core.accountChanges.heard();
    assert.match(await cli('accounts', 'enable', '--email', email), /enabled again/);
    await reenabled;
    assert.equal((await status()).statusCode, 200);
  });
});
