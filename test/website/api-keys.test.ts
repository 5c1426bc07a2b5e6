import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const KEYS = '/web/api/account/keys';

interface KeyJson {
  id: string;
  name: string;
  scope: string;
  hint: string;
  created_at: number;
  expires_at: number | null;
  expired: boolean;
  last_used_at: number | null;
}

// Issue 31: the account page's keys API (session + the site's Origin, as every /web/api change).
describe('website: API keys of the signed-in account', () => {
  let t: TestApp;
  let cookie: string;
  let web: Record<string, string>;
  let accountId: string;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    const { email, id } = await t.createAccount(undefined, { password: PASSWORD });
    accountId = id;
    cookie = await signedInCookie(t.app, { email, password: PASSWORD });
    web = { cookie, origin: TEST_ORIGIN };
  });
  after(async () => {
    await t.close();
  });

  const list = async () => {
    const response = await t.app.inject({ method: 'GET', url: KEYS, headers: { cookie } });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { keys: KeyJson[] }).keys;
  };
  const create = (payload: object, headers = web) =>
    t.app.inject({ method: 'POST', url: KEYS, headers, payload });

  test('lists the default key, creates a read key shown once, and revokes it', async () => {
    const [first] = await list();
    assert.equal(first?.name, 'default');
    assert.equal(first?.scope, 'full');
    assert.equal(first?.expired, false);

    const expiresAt = Date.now() + 7 * 86_400_000;
    const made = await create({
      name: 'dashboard',
      scope: 'read',
      expires_at: expiresAt,
      password: PASSWORD,
    });
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.headers['cache-control'], 'no-store');
    const { key, api_key: apiKey } = made.json() as { key: KeyJson; api_key: string };
    assert.equal(key.scope, 'read');
    assert.equal(key.expires_at, expiresAt);
    assert.equal(key.hint, `${apiKey.slice(0, 8)}…`);
    assert.deepEqual(
      (await list()).map((k) => [k.name, k.scope]),
      [
        ['default', 'full'],
        ['dashboard', 'read'],
      ],
    );
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal(status.statusCode, 200);
    const generate = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'no' },
    });
    assertError(generate, 403, 'insufficient_scope');

    const revoke = () => t.app.inject({ method: 'DELETE', url: `${KEYS}/${key.id}`, headers: web });
    assert.equal((await revoke()).statusCode, 204);
    assertError(await revoke(), 404, 'not_found');
    assert.deepEqual(
      (await list()).map((k) => k.name),
      ['default'],
    );
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal(assertError(after, 401, 'invalid_api_key'), 'Invalid API key');
  });

  test('creating asks for the password; changes need the site’s Origin; bad fields are named', async () => {
    assertError(await create({ name: 'x', password: 'not the password' }), 403, 'forbidden');
    assertError(await create({ name: 'x', password: PASSWORD }, { cookie }), 403, 'forbidden');
    assert.match(
      assertError(await create({ name: 'x', scope: 'admin', password: PASSWORD }), 400, 'invalid_request'),
      /scope/,
    );
    assert.match(
      assertError(await create({ name: ' ', password: PASSWORD }), 400, 'invalid_request'),
      /name/,
    );
    assert.match(
      assertError(
        await create({ name: 'x', expires_at: Date.now() - 1000, password: PASSWORD }),
        400,
        'invalid_request',
      ),
      /expir/,
    );
    const [own] = await list();
    const noOrigin = await t.app.inject({ method: 'DELETE', url: `${KEYS}/${own?.id}`, headers: { cookie } });
    assertError(noOrigin, 403, 'forbidden');
    assertError(await t.app.inject({ method: 'GET', url: KEYS }), 401, 'unauthorized');
  });

  test("another account's key is not found, and an API key cannot manage keys", async () => {
    const other = await t.createAccount(undefined, { password: PASSWORD });
    const [theirs] = await t.core.accounts.listKeys(other.id);
    const response = await t.app.inject({ method: 'DELETE', url: `${KEYS}/${theirs?.id}`, headers: web });
    assertError(response, 404, 'not_found');
    assert.ok(await t.core.accounts.authenticateApiKey(other.apiKey), 'their key still works');
    const byKey = await t.app.inject({ method: 'GET', url: KEYS, headers: bearer(other.apiKey) });
    assertError(byKey, 401, 'unauthorized');
    assert.equal((await t.core.accounts.listKeys(accountId)).length, 1);
  });
});
