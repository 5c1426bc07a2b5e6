import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signInRequest } from '../support/website-session.js';
import { ADMIN, operatorAndUser, PASSWORD, requests } from './admin-support.js';

describe('operator console API: accounts', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;

  before(async () => {
    t = await createTestApp();
    who = await operatorAndUser(t);
  });
  after(() => t?.close());

  const get = (url: string, headers: Record<string, string>) => requests(t).get(url, headers);
  const send = (...args: Parameters<ReturnType<typeof requests>['send']>) => requests(t).send(...args);

  test('a non-operator, a missing key and an unknown key are refused on every route', async () => {
    const id = who.user.id;
    const routes: Array<[string, string]> = [
      ['GET', `${ADMIN}/accounts`],
      ['POST', `${ADMIN}/accounts`],
      ['GET', `${ADMIN}/accounts/${id}`],
      ['PATCH', `${ADMIN}/accounts/${id}`],
      ['POST', `${ADMIN}/accounts/${id}/password`],
      ['GET', `${ADMIN}/accounts/${id}/usage`],
      ['PUT', `${ADMIN}/accounts/${id}/budget`],
      ['GET', `${ADMIN}/usage`],
      ['GET', `${ADMIN}/policies`],
      ['GET', `${ADMIN}/upstreams`],
    ];
    const userCookie = (await signInRequest(t.app, { email: who.user.email, password: PASSWORD })).headers[
      'set-cookie'
    ];
    for (const [method, url] of routes) {
      const payload = method === 'GET' ? {} : { payload: { email: 'x@example.test', tier: 'pro' } };
      const as = (headers: Record<string, string>) =>
        t.app.inject({ method: method as 'GET', url, headers, ...payload });
      const message = assertError(await as(who.plain), 403, 'forbidden');
      assert.match(message, /operators/);
      assertError(
        await as({ cookie: String(userCookie).split(';')[0] ?? '', origin: who.web.origin }),
        403,
        'forbidden',
      );
      assertError(await as({}), 401, 'unauthorized');
      assertError(await as(bearer('atl_not_a_key')), 401, 'invalid_api_key');
    }
    // Nothing changed for the refused calls.
    assert.equal((await t.core.accounts.findById(id))?.tier, 'trial');
  });

  test("the website's session says whether the account is an operator", async () => {
    const mine = await get('/web/api/session', { cookie: who.cookie });
    assert.deepEqual(mine.json(), {
      signedIn: true,
      email: who.operator.email,
      tier: 'pro',
      operator: true,
      passwordChangeRequired: false,
    });
    const signIn = await signInRequest(t.app, { email: who.user.email, password: PASSWORD });
    assert.equal(signIn.json().operator, false);
  });

  test('list and search: e-mail text, tier, disabled, operator; paged; today’s images', async () => {
    const all = await get(`${ADMIN}/accounts`, who.op);
    assert.equal(all.statusCode, 200, all.body);
    const page = all.json();
    assert.equal(page.total, 2);
    assert.deepEqual(
      page.items.map((a: { email: string; operator: boolean }) => [a.email, a.operator]),
      [
        [who.operator.email, true],
        [who.user.email, false],
      ],
    );
    assert.deepEqual(page.items[1].today, { completed: 0, failed: 0, cost_micros: 0, absorbed_micros: 0 });
    assert.equal(page.items[1].budget, null);
    const part = who.user.email.slice(0, 6).toUpperCase();
    const search = (await get(`${ADMIN}/accounts?q=${encodeURIComponent(part)}`, who.op)).json();
    assert.deepEqual(
      search.items.map((a: { id: string }) => a.id),
      [who.user.id],
    );
    const wild = (await get(`${ADMIN}/accounts?q=%25`, who.op)).json();
    assert.equal(wild.total, 0, 'a % is searched for, not a wildcard');
    const pro = (await get(`${ADMIN}/accounts?tier=pro&operator=true&disabled=false`, who.op)).json();
    assert.deepEqual(
      pro.items.map((a: { id: string }) => a.id),
      [who.operator.id],
    );
    const paged = (await get(`${ADMIN}/accounts?limit=1&page=2`, who.op)).json();
    assert.deepEqual([paged.items.length, paged.total_pages, paged.page], [1, 2, 2]);
    assertError(await get(`${ADMIN}/accounts?limit=0`, who.op), 400, 'invalid_request');
    assertError(await get(`${ADMIN}/accounts?disabled=maybe`, who.op), 400, 'invalid_request');
    // The website's session reads it too.
    assert.equal((await get(`${ADMIN}/accounts`, { cookie: who.cookie })).statusCode, 200);
  });

  test('create: the first key is answered once and works; a taken e-mail is refused', async () => {
    const created = await send('POST', `${ADMIN}/accounts`, who.op, {
      email: 'New.Person@Example.test',
      tier: 'starter',
      password: 'a good password',
    });
    assert.equal(created.statusCode, 201, created.body);
    const { account, api_key } = created.json();
    assert.equal(account.email, 'new.person@example.test');
    assert.equal(account.tier, 'starter');
    assert.equal(account.operator, false);
    const status = await get('/api/v1/user/status', bearer(api_key));
    assert.equal(status.json().email, 'new.person@example.test');
    assert.equal(
      (await signInRequest(t.app, { email: account.email, password: 'a good password' })).statusCode,
      200,
    );
    assertError(
      await send('POST', `${ADMIN}/accounts`, who.op, { email: account.email }),
      400,
      'invalid_request',
    );
    assertError(
      await send('POST', `${ADMIN}/accounts`, who.op, { email: 'x@y.z', password: 'short' }),
      400,
      'invalid_request',
    );
    assertError(
      await send('POST', `${ADMIN}/accounts`, who.op, { email: 'x@y.z', tier: 'gold' }),
      400,
      'invalid_request',
    );
    // From the website: the same-origin check holds for the session (not for a Bearer key).
    assertError(
      await send('POST', `${ADMIN}/accounts`, { cookie: who.cookie }, { email: 'c@d.e' }),
      403,
      'forbidden',
    );
    const fromSite = await send('POST', `${ADMIN}/accounts`, who.web, { email: 'site@example.test' });
    assert.equal(fromSite.statusCode, 201, fromSite.body);
  });

  test('one account; tier; disable and enable, refused for oneself; unknown ids are 404', async () => {
    const { id } = who.user;
    assert.equal((await get(`${ADMIN}/accounts/${id}`, who.op)).json().email, who.user.email);
    assertError(await get(`${ADMIN}/accounts/acc_none`, who.op), 404, 'not_found');
    const tiered = await send('PATCH', `${ADMIN}/accounts/${id}`, who.op, { tier: 'standard' });
    assert.equal(tiered.statusCode, 200, tiered.body);
    assert.equal(tiered.json().tier, 'standard');
    assert.equal((await get('/api/v1/user/status', who.plain)).json().tier, 'standard');
    assertError(
      await send('PATCH', `${ADMIN}/accounts/${id}`, who.op, { tier: 'gold' }),
      400,
      'invalid_request',
    );
    assertError(await send('PATCH', `${ADMIN}/accounts/acc_none`, who.op, { tier: 'pro' }), 404, 'not_found');
    assertError(
      await send('PATCH', `${ADMIN}/accounts/${who.operator.id}`, who.op, { disabled: true }),
      409,
      'conflict',
    );

    const userSession = (await signInRequest(t.app, { email: who.user.email, password: PASSWORD })).headers[
      'set-cookie'
    ];
    const cookie = String(userSession).split(';')[0] ?? '';
    assert.equal((await get('/web/api/account', { cookie })).statusCode, 200);
    const disabled = await send('PATCH', `${ADMIN}/accounts/${id}`, who.op, { disabled: true });
    assert.equal(disabled.json().disabled, true);
    // At once: the key and the session stop working.
    assertError(await get('/api/v1/user/status', who.plain), 401, 'invalid_api_key');
    assertError(await get('/web/api/account', { cookie }), 401, 'unauthorized');
    const filtered = (await get(`${ADMIN}/accounts?disabled=true`, who.op)).json();
    assert.deepEqual(
      filtered.items.map((a: { id: string }) => a.id),
      [id],
    );
    const enabled = await send('PATCH', `${ADMIN}/accounts/${id}`, who.op, { disabled: false });
    assert.equal(enabled.json().disabled, false);
    assert.equal((await get('/api/v1/user/status', who.plain)).statusCode, 200);
    assertError(await get('/web/api/account', { cookie }), 401, 'unauthorized');
  });

  test('reset password: generated and answered once, or set; every session ends', async () => {
    const { id, email } = who.user;
    const session = (await signInRequest(t.app, { email, password: PASSWORD })).headers['set-cookie'];
    const cookie = String(session).split(';')[0] ?? '';
    const reset = await send('POST', `${ADMIN}/accounts/${id}/password`, who.op, {});
    assert.equal(reset.statusCode, 200, reset.body);
    const { password } = reset.json();
    assert.equal(typeof password, 'string');
    assert.ok(password.length >= 20);
    assertError(await get('/web/api/account', { cookie }), 401, 'unauthorized');
    assert.equal((await signInRequest(t.app, { email, password })).statusCode, 200);
    const set = await send('POST', `${ADMIN}/accounts/${id}/password`, who.op, { password: PASSWORD });
    assert.deepEqual(set.json(), { password: null });
    assert.equal((await signInRequest(t.app, { email, password: PASSWORD })).statusCode, 200);
    assertError(
      await send('POST', `${ADMIN}/accounts/${id}/password`, who.op, { password: 'short' }),
      400,
      'invalid_request',
    );
    assertError(await send('POST', `${ADMIN}/accounts/acc_none/password`, who.op, {}), 404, 'not_found');
  });

  test("an account's usage report; a bad range is refused", async () => {
    const report = await get(`${ADMIN}/accounts/${who.user.id}/usage?from=2026-01-01&to=2026-01-03`, who.op);
    assert.equal(report.statusCode, 200, report.body);
    assert.equal(report.json().days.length, 3);
    assertError(
      await get(`${ADMIN}/accounts/${who.user.id}/usage?from=2026-02-03&to=2026-01-01`, who.op),
      400,
      'invalid_request',
    );
    assertError(await get(`${ADMIN}/accounts/acc_none/usage`, who.op), 404, 'not_found');
  });
});
