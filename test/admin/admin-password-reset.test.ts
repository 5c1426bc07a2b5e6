import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/edges/cli/main.js';
import { SAME_AS_RESET, WRONG_PASSWORD } from '../../src/edges/website/credential-routes.js';
import { PASSWORD_CHANGE_REQUIRED } from '../../src/edges/website/session-auth.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import {
  isSignedIn,
  sessionCookieOf,
  signedInCookie,
  signInRequest,
  TEST_ORIGIN,
} from '../support/website-session.js';
import { ADMIN, operatorAndUser, PASSWORD, requests } from './admin-support.js';

const OWN_PASSWORD = 'my very own password';

/**
 * An operator's reset (the console's API, or the CLI) makes the person choose their own password:
 * the reset password signs in, but that session can do nothing but set a new one (403
 * password_change_required everywhere else, website, API and console alike) until it does.
 */
describe('an operator reset forces a password change', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    who = await operatorAndUser(t);
  });
  after(() => t?.close());

  const get = (url: string, headers: Record<string, string>) => requests(t).get(url, headers);
  const send = (...args: Parameters<ReturnType<typeof requests>['send']>) => requests(t).send(...args);
  /** The session's headers for a state-changing request (the site's own origin). */
  const web = (cookie: string) => ({ cookie, origin: TEST_ORIGIN });
  const flagOf = async (id: string) =>
    (await get(`${ADMIN}/accounts/${id}`, who.op)).json().password_change_required as boolean;
  const changePassword = (cookie: string, current: string, next: string) =>
    send('POST', '/web/api/account/password', web(cookie), { current_password: current, new_password: next });

  test('the reset password opens one thing until it is replaced; then everything, and it no longer signs in', async () => {
    const { id, email, apiKey } = who.user;
    assert.equal(await flagOf(id), false);
    const earlier = await signedInCookie(t.app, { email, password: PASSWORD });

    const reset = await send('POST', `${ADMIN}/accounts/${id}/password`, who.op, {});
    assert.equal(reset.statusCode, 200, reset.body);
    const oneTime = reset.json().password as string;
    assert.equal(await flagOf(id), true);
    assert.equal(await isSignedIn(t.app, earlier), false, 'the reset ended the sessions');

    const signIn = await signInRequest(t.app, { email, password: oneTime });
    assert.equal(signIn.statusCode, 200, signIn.body);
    assert.equal(signIn.json().passwordChangeRequired, true);
    const cookie = sessionCookieOf(signIn);
    const elsewhere = await signedInCookie(t.app, { email, password: oneTime });
    const state = (await get('/web/api/session', { cookie })).json();
    assert.deepEqual(state, {
      signedIn: true,
      email,
      tier: 'trial',
      operator: false,
      passwordChangeRequired: true,
    });

    // Refused everywhere else: the website's API, the HTTP API and the console's, with the session.
    for (const refused of [
      await get('/web/api/account', { cookie }),
      await get('/web/api/works', { cookie }),
      await send('POST', '/web/api/generate', web(cookie), { prompt: 'a fox' }),
      await send('DELETE', '/web/api/sessions', web(cookie)),
      await get('/api/v1/user/status', { cookie }),
      await get('/v1/history', { cookie }),
      await get(`${ADMIN}/accounts`, { cookie }),
    ]) {
      assert.equal(assertError(refused, 403, 'password_change_required'), PASSWORD_CHANGE_REQUIRED);
    }
    // API keys are not affected.
    assert.equal((await get('/api/v1/user/status', bearer(apiKey))).statusCode, 200);

    // The one thing it may do, with the password it was given; not to that same password.
    assertError(await changePassword(cookie, oneTime, oneTime), 400, 'invalid_request');
    assert.equal((await changePassword(cookie, oneTime, oneTime)).json().error.message, SAME_AS_RESET);
    assert.equal(
      assertError(await changePassword(cookie, 'not the password', OWN_PASSWORD), 403, 'forbidden'),
      WRONG_PASSWORD,
    );
    assert.equal(await flagOf(id), true, 'refused changes clear nothing');

    const changed = await changePassword(cookie, oneTime, OWN_PASSWORD);
    assert.equal(changed.statusCode, 204, changed.body);
    const renewed = sessionCookieOf(changed);
    assert.equal(await flagOf(id), false);
    assert.equal(await isSignedIn(t.app, elsewhere), false, "the account's other sessions ended");
    assert.equal(await isSignedIn(t.app, cookie), false, 'and the old token of this browser');
    assert.equal((await get('/web/api/session', { cookie: renewed })).json().passwordChangeRequired, false);
    assert.equal((await get('/web/api/account', { cookie: renewed })).statusCode, 200);
    assert.equal((await get('/api/v1/user/status', { cookie: renewed })).statusCode, 200);

    assertError(await signInRequest(t.app, { email, password: oneTime }), 401, 'unauthorized');
    const again = await signInRequest(t.app, { email, password: OWN_PASSWORD });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().passwordChangeRequired, false);
  });

  test('the document declares the refusal on the routes a session reaches, not where it sets a password', async () => {
    const document = (await get('/api/v1/openapi.json', {})).json();
    const refusals = (path: string, method: string) =>
      String(document.paths[path][method].responses['403']?.description ?? '');
    const reached: Array<[string, string]> = [
      ['/web/api/account', 'get'],
      ['/web/api/sessions', 'delete'],
      ['/api/v1/user/status', 'get'],
      ['/api/admin/v1/accounts', 'get'],
    ];
    for (const [path, method] of reached) {
      assert.match(refusals(path, method), /password_change_required/, `${method} ${path}`);
    }
    assert.doesNotMatch(refusals('/web/api/account/password', 'post'), /password_change_required/);
  });

  test('a password the person sets themselves never asks for another', async () => {
    const account = await t.createAccount(undefined, { password: PASSWORD });
    const cookie = await signedInCookie(t.app, { email: account.email, password: PASSWORD });
    const changed = await changePassword(cookie, PASSWORD, OWN_PASSWORD);
    assert.equal(changed.statusCode, 204, changed.body);
    assert.equal(await flagOf(account.id), false);
    const signIn = await signInRequest(t.app, { email: account.email, password: OWN_PASSWORD });
    assert.equal(signIn.json().passwordChangeRequired, false);
    assert.equal((await get('/web/api/account', { cookie: sessionCookieOf(signIn) })).statusCode, 200);
  });

  test('a typed-in reset, and the CLI’s set-password, force the change too', async () => {
    const account = await t.createAccount(undefined, { password: PASSWORD });
    const typed = await send('POST', `${ADMIN}/accounts/${account.id}/password`, who.op, {
      password: 'typed by the operator',
    });
    assert.deepEqual(typed.json(), { password: null });
    const signIn = await signInRequest(t.app, { email: account.email, password: 'typed by the operator' });
    assert.equal(signIn.json().passwordChangeRequired, true);
    const cookie = sessionCookieOf(signIn);
    assertError(await get('/web/api/account', { cookie }), 403, 'password_change_required');
    assert.equal((await changePassword(cookie, 'typed by the operator', OWN_PASSWORD)).statusCode, 204);
    assert.equal(await flagOf(account.id), false);

    const lines: string[] = [];
    const env = {
      LOG_LEVEL: 'silent',
      ATELIER_DEMO_ACCOUNT: 'false',
      ATELIER_DATA_DIR: t.dataDir,
      ATELIER_DATABASE_URL: t.core.config.databaseUrl,
    };
    const argv = [
      'accounts',
      'set-password',
      '--email',
      account.email,
      '--password',
      'from the command line',
    ];
    assert.equal(await runCli(argv, { env, out: (line) => lines.push(line), err: () => {} }), 0);
    assert.match(lines.join('\n'), /choose their own at their next website sign-in/);
    assert.equal(await flagOf(account.id), true);
    const viaCli = await signInRequest(t.app, { email: account.email, password: 'from the command line' });
    assert.equal(viaCli.json().passwordChangeRequired, true);
    assertError(
      await get('/web/api/account', { cookie: sessionCookieOf(viaCli) }),
      403,
      'password_change_required',
    );

    // --permanent: the operator sets a password that is the person's own (their own account, say).
    const io = { env, out: (line: string) => lines.push(line), err: () => {} };
    assert.equal(await runCli([...argv.slice(0, -1), 'a lasting password', '--permanent'], io), 0);
    assert.equal(await flagOf(account.id), false);
    const lasting = await signInRequest(t.app, { email: account.email, password: 'a lasting password' });
    assert.equal(lasting.json().passwordChangeRequired, false);
    assert.equal((await get('/web/api/account', { cookie: sessionCookieOf(lasting) })).statusCode, 200);
  });
});
