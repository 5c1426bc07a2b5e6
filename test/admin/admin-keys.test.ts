import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { ADMIN, operatorAndUser, PASSWORD, requests } from './admin-support.js';

/** Asks until `probe` answers `status` (a change announced to another node arrives in milliseconds). */
async function eventually(probe: () => Promise<{ statusCode: number }>, status: number, what: string) {
  const until = Date.now() + 10_000;
  let last = 0;
  while (Date.now() < until) {
    last = (await probe()).statusCode;
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.fail(`${what}: still ${last}, not ${status}`);
}

describe('operator console API: keys', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;

  before(async () => {
    t = await createTestApp();
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(() => t?.close());

  test('list, issue (shown once), use, revoke (refused at once); errors and refusals', async () => {
    const url = `${ADMIN}/accounts/${who.user.id}/keys`;
    const listed = await r.get(url, who.op);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().keys.map((k: { name: string; scope: string }) => [k.name, k.scope]),
      [['default', 'full']],
    );

    const issued = await r.send('POST', url, who.web, { name: 'dashboard', scope: 'read' });
    assert.equal(issued.statusCode, 201, issued.body);
    const { key, api_key } = issued.json();
    assert.equal(key.name, 'dashboard');
    assert.ok(api_key.startsWith(key.hint.replace('…', '')), 'the hint is the key’s beginning');
    assert.equal((await r.get('/api/v1/user/status', bearer(api_key))).json().email, who.user.email);
    // A read key cannot write.
    const refused = await r.send('POST', '/api/v1/generate', bearer(api_key), { prompt: 'x' });
    assertError(refused, 403, 'insufficient_scope');
    assert.ok(!JSON.stringify((await r.get(url, who.op)).json()).includes(api_key), 'never shown again');

    const revoked = await r.send('DELETE', `${url}/${key.id}`, who.web);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(typeof revoked.json().revoked_at, 'number');
    assertError(await r.get('/api/v1/user/status', bearer(api_key)), 401, 'invalid_api_key');
    assert.equal((await r.get(url, who.op)).json().keys.length, 1);
    assert.equal((await r.get(`${url}?revoked=true`, who.op)).json().keys.length, 2);

    assertError(await r.send('DELETE', `${url}/${key.id}`, who.op), 404, 'not_found');
    assertError(await r.send('POST', url, who.op, { name: '' }), 400, 'invalid_request');
    assertError(await r.send('POST', url, who.op, { name: 'x', expires_at: 1 }), 400, 'invalid_request');
    assertError(await r.send('POST', url, who.op, { name: 'x', scope: 'admin' }), 400, 'invalid_request');
    assertError(await r.get(`${ADMIN}/accounts/acc_none/keys`, who.op), 404, 'not_found');
    assertError(
      await r.send('POST', `${ADMIN}/accounts/acc_none/keys`, who.op, { name: 'x' }),
      404,
      'not_found',
    );
    // Another account's key is not this account's.
    const [opKey] = (await r.get(`${ADMIN}/accounts/${who.operator.id}/keys`, who.op)).json().keys;
    assertError(await r.send('DELETE', `${url}/${opKey.id}`, who.op), 404, 'not_found');

    for (const [method, path] of [
      ['GET', url],
      ['POST', url],
      ['DELETE', `${url}/${opKey.id}`],
    ] as const) {
      const as = (headers: Record<string, string>) =>
        method === 'GET'
          ? r.get(path, headers)
          : r.send(method, path, headers, method === 'POST' ? { name: 'n' } : undefined);
      assertError(await as(who.plain), 403, 'forbidden');
      assertError(await as({}), 401, 'unauthorized');
    }
    // A session without the site's origin is refused before anything changes.
    assertError(await r.send('POST', url, { cookie: who.cookie }, { name: 'forged' }), 403, 'forbidden');
    assert.equal((await r.get(url, who.op)).json().keys.length, 1);
  });

  test("a key's own budgets: set, listed with the key and with the policies; errors and refusals", async () => {
    const url = `${ADMIN}/accounts/${who.user.id}/keys`;
    const [key] = (await r.get(url, who.op)).json().keys;
    assert.equal(key.budget, null);
    const set = await r.send('PUT', `${url}/${key.id}/budget`, who.web, { daily_micros: 250_000 });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json(), { key_id: key.id, daily_micros: 250_000, monthly_micros: null });
    assert.deepEqual((await r.get(url, who.op)).json().keys[0].budget, {
      daily_micros: 250_000,
      monthly_micros: null,
    });
    const policies = (await r.get(`${ADMIN}/policies`, who.op)).json();
    assert.deepEqual(policies.key_budgets, [
      {
        account_id: who.user.id,
        email: who.user.email,
        key_id: key.id,
        daily_micros: 250_000,
        monthly_micros: null,
      },
    ]);
    assertError(
      await r.send('PUT', `${url}/${key.id}/budget`, who.op, { monthly_micros: -5 }),
      400,
      'invalid_request',
    );
    assertError(await r.send('PUT', `${url}/key_none/budget`, who.op, {}), 404, 'not_found');
    const [opKey] = (await r.get(`${ADMIN}/accounts/${who.operator.id}/keys`, who.op)).json().keys;
    assertError(await r.send('PUT', `${url}/${opKey.id}/budget`, who.op, {}), 404, 'not_found');
    assertError(
      await r.send('PUT', `${url}/${key.id}/budget`, who.plain, { daily_micros: null }),
      403,
      'forbidden',
    );
    assertError(
      await r.send('PUT', `${url}/${key.id}/budget`, {}, { daily_micros: null }),
      401,
      'unauthorized',
    );
    const removed = await r.send('PUT', `${url}/${key.id}/budget`, who.op, { daily_micros: null });
    assert.deepEqual(removed.json(), { key_id: key.id, daily_micros: null, monthly_micros: null });
    assert.equal((await r.get(url, who.op)).json().keys[0].budget, null);
  });

  test("an operator's read-only key reads the console but changes nothing", async () => {
    const mine = `${ADMIN}/accounts/${who.operator.id}/keys`;
    const { api_key } = (await r.send('POST', mine, who.op, { name: 'watch', scope: 'read' })).json();
    assert.equal((await r.get(`${ADMIN}/accounts`, bearer(api_key))).statusCode, 200);
    const change = await r.send('PATCH', `${ADMIN}/accounts/${who.user.id}`, bearer(api_key), {
      tier: 'pro',
    });
    assertError(change, 403, 'insufficient_scope');
  });
});

describe('disabling from the console stops a key and a session on another node at once', () => {
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    a = await createTestApp();
    // A second node on the same database (and data dir), as behind a load balancer.
    b = await createTestApp({
      env: { ATELIER_DATABASE_URL: a.core.config.databaseUrl, ATELIER_DATA_DIR: a.dataDir },
    });
  });
  after(async () => {
    // The second node shares the first one's database and data directory: the first removes them.
    await b?.app.close();
    await b?.core.close(1000);
    await a?.close();
  });

  test('node B refuses the key and the session once node A disabled the account', async () => {
    const who = await operatorAndUser(a);
    const onB = requests(b);
    const cookie = await signedInCookie(b.app, { email: who.user.email, password: PASSWORD });
    // Node B has read (and keeps) the key.
    assert.equal((await onB.get('/api/v1/user/status', who.plain)).statusCode, 200);
    assert.equal((await onB.get('/web/api/account', { cookie })).statusCode, 200);

    const disabled = await requests(a).send('PATCH', `${ADMIN}/accounts/${who.user.id}`, who.op, {
      disabled: true,
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    await eventually(() => onB.get('/api/v1/user/status', who.plain), 401, 'the key on node B');
    assertError(await onB.get('/api/v1/user/status', who.plain), 401, 'invalid_api_key');
    assertError(await onB.get('/web/api/account', { cookie }), 401, 'unauthorized');

    await requests(a).send('PATCH', `${ADMIN}/accounts/${who.user.id}`, who.op, { disabled: false });
    await eventually(
      () => onB.get('/api/v1/user/status', who.plain),
      200,
      'the key on node B, enabled again',
    );
  });
});
