import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../../src/app.js';
import { apiKeyHint, generateApiKey, hashApiKey } from '../../../src/capabilities/accounts/credentials.js';
import { type Core, createCore } from '../../../src/core.js';
import { type Config, loadConfig } from '../../../src/infra/config/config.js';
import { migrations } from '../../../src/infra/store/migrations/index.js';
import { assertError, bearer } from '../../support/api-helpers.js';
import { freshTestDataEnv, removeTestData, testDatabaseEnv } from '../../support/test-database.js';
import { twoNodesOnOneStore } from '../../support/two-nodes.js';
import { signedInCookie, TEST_ORIGIN } from '../../support/website-session.js';

/** A clock the test moves. */
function settableClock(start = Date.UTC(2026, 0, 10)) {
  const state = { now: start };
  return { state, clock: { now: () => state.now } };
}

/** Waits until the key's last use read from the store is `expected` (it is written off the request's path). */
async function lastUseOf(core: Core, accountId: string, keyId: string, expected: number | null) {
  for (;;) {
    const key = (await core.accounts.listKeys(accountId)).find((k) => k.id === keyId);
    if (key?.lastUsedAt === expected) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('migration 0028: the one key of each account moves into api_keys', () => {
  test('a key issued before the migration still authenticates after it, as a full key named default', async () => {
    const env = await testDatabaseEnv({ empty: true });
    const dir = await mkdtemp(join(tmpdir(), 'atelier-keys-migration-'));
    const url = env.ATELIER_DATABASE_URL ?? join(dir, 'atelier.db');
    const db = new Kysely<unknown>({
      dialect: env.ATELIER_DATABASE_URL
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) })
        : new SqliteDialect({ database: new SQLite(url) }),
    });
    const oldKey = generateApiKey();
    const oldHint = `atl_…${oldKey.slice(-4)}`;
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      assert.equal((await migrator.migrateTo('0027_asset_original_name')).error, undefined);
      await sql`insert into accounts (id, email, tier, api_key_hash, api_key_hint, created_at, updated_at)
        values ('acc_old', 'old@example.test', 'standard', ${hashApiKey(oldKey)}, ${oldHint}, 1000, 1000)`.execute(
        db,
      );
    } finally {
      await db.destroy();
    }
    const config = loadConfig({
      ATELIER_DATA_DIR: dir,
      ...env,
      LOG_LEVEL: 'silent',
      ATELIER_DEMO_ACCOUNT: 'false',
    });
    const core = await createCore(config);
    try {
      const account = await core.accounts.authenticateApiKey(oldKey);
      assert.equal(account?.id, 'acc_old');
      assert.equal(account?.apiKey?.name, 'default');
      assert.equal(account?.apiKey?.scope, 'full');
      assert.match(account?.apiKey?.id ?? '', /^key_/);
      const [key, ...others] = await core.accounts.listKeys('acc_old');
      assert.deepEqual(others, []);
      assert.equal(key?.hint, oldHint);
      assert.equal(key?.createdAt, 1000);
      assert.equal(await core.accounts.apiKeyHint('acc_old'), oldHint);
      // The account's old column can match no key any more.
      const row = await core.resources.db
        .selectFrom('accounts')
        .select('api_key_hash')
        .executeTakeFirstOrThrow();
      assert.equal(row.api_key_hash, 'moved:acc_old');
      const app = await buildApp(core);
      const status = await app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(oldKey) });
      assert.equal(status.statusCode, 200);
      await app.close();
    } finally {
      await core.close(0);
      await removeTestData(config);
    }
  });
});

describe('several keys per account', () => {
  let config: Config;
  let core: Core;
  const time = settableClock();

  before(async () => {
    config = loadConfig({
      ...(await freshTestDataEnv('keys-')),
      LOG_LEVEL: 'silent',
      ATELIER_DEMO_ACCOUNT: 'false',
    });
    core = await createCore(config, { clock: time.clock });
  });
  after(async () => {
    await core.close(0);
    await removeTestData(config);
  });

  test('an account is created with one full key named default', async () => {
    const { account, apiKey } = await core.accounts.create({ email: 'one@example.test' });
    const keys = await core.accounts.listKeys(account.id);
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.name, 'default');
    assert.equal(keys[0]?.scope, 'full');
    assert.equal(keys[0]?.hint, apiKeyHint(apiKey));
    assert.equal(keys[0]?.expiresAt, null);
    assert.equal((await core.accounts.authenticateApiKey(apiKey))?.apiKey?.id, keys[0]?.id);
  });

  test('a created key works with its scope, is listed without its secret, and stops when revoked by its hint', async () => {
    const { account, apiKey: first } = await core.accounts.create({ email: 'many@example.test' });
    time.state.now += 1000;
    const { key, apiKey } = await core.accounts.createKey(account.id, { name: ' dashboard ', scope: 'read' });
    assert.match(key.id, /^key_/);
    assert.equal(key.name, 'dashboard');
    assert.equal(key.hint, `${apiKey.slice(0, 8)}…`);
    const found = await core.accounts.authenticateApiKey(apiKey);
    assert.equal(found?.id, account.id);
    assert.deepEqual(found?.apiKey, { id: key.id, name: 'dashboard', scope: 'read', expiresAt: null });
    const listed = await core.accounts.listKeys(account.id);
    assert.deepEqual(
      listed.map((k) => [k.name, k.scope]),
      [
        ['default', 'full'],
        ['dashboard', 'read'],
      ],
    );
    assert.ok(!JSON.stringify(listed).includes(apiKey.slice(8)));

    const revoked = await core.accounts.revokeKey(account.id, key.hint.replace('…', ''));
    assert.equal(revoked.id, key.id);
    assert.equal(await core.accounts.authenticateApiKey(apiKey), undefined);
    assert.ok(await core.accounts.authenticateApiKey(first), 'the other key still works');
    assert.deepEqual(
      (await core.accounts.listKeys(account.id)).map((k) => k.name),
      ['default'],
    );
    const all = await core.accounts.listKeys(account.id, { includeRevoked: true });
    assert.equal(all.find((k) => k.id === key.id)?.revokedAt, time.state.now);
    await assert.rejects(core.accounts.revokeKey(account.id, key.id), { name: 'NotFound' });
  });

  test("another account's key cannot be revoked; bad names, scopes and expiries are refused", async () => {
    const { account: mine } = await core.accounts.create({ email: 'mine@example.test' });
    const { account: theirs } = await core.accounts.create({ email: 'theirs@example.test' });
    const { key } = await core.accounts.createKey(theirs.id, { name: 'ci' });
    await assert.rejects(core.accounts.revokeKey(mine.id, key.id), { name: 'NotFound' });
    await assert.rejects(core.accounts.createKey(mine.id, { name: '  ' }), { name: 'InvalidInput' });
    await assert.rejects(core.accounts.createKey(mine.id, { name: 'x'.repeat(65) }), {
      name: 'InvalidInput',
    });
    await assert.rejects(core.accounts.createKey(mine.id, { name: 'a', scope: 'admin' }), {
      name: 'InvalidInput',
    });
    await assert.rejects(core.accounts.createKey(mine.id, { name: 'a', expiresAt: time.state.now }), {
      name: 'InvalidInput',
    });
  });

  test('an expired key is refused from the moment it expires, even while it is kept in memory', async () => {
    const { account } = await core.accounts.create({ email: 'expiry@example.test' });
    const expiresAt = time.state.now + 30_000;
    const { apiKey } = await core.accounts.createKey(account.id, { name: 'short', expiresAt });
    assert.equal((await core.accounts.authenticateApiKey(apiKey))?.apiKey?.expiresAt, expiresAt);
    time.state.now = expiresAt - 1;
    assert.ok(await core.accounts.authenticateApiKey(apiKey));
    time.state.now = expiresAt;
    assert.equal(await core.accounts.authenticateApiKey(apiKey), undefined);
  });

  test('last use is written at most once a minute per key', async () => {
    const { account } = await core.accounts.create({ email: 'used@example.test' });
    const { key, apiKey } = await core.accounts.createKey(account.id, { name: 'used' });
    const start = time.state.now;
    await core.accounts.authenticateApiKey(apiKey);
    await lastUseOf(core, account.id, key.id, start);
    time.state.now = start + 59_999;
    for (let i = 0; i < 5; i++) await core.accounts.authenticateApiKey(apiKey);
    // The next minute's use is written; the ones between were not (the value is still `start` until then).
    assert.equal((await core.accounts.listKeys(account.id)).find((k) => k.id === key.id)?.lastUsedAt, start);
    time.state.now = start + 60_000;
    await core.accounts.authenticateApiKey(apiKey);
    await lastUseOf(core, account.id, key.id, start + 60_000);
  });

  test('rotate-key replaces the full keys named default; other keys keep working', async () => {
    const { account, apiKey: old } = await core.accounts.create({ email: 'rotate@example.test' });
    const { apiKey: ci } = await core.accounts.createKey(account.id, { name: 'ci' });
    const { apiKey: readDefault } = await core.accounts.createKey(account.id, {
      name: 'default',
      scope: 'read',
    });
    const fresh = await core.accounts.rotateApiKey(account.id);
    assert.equal(await core.accounts.authenticateApiKey(old), undefined);
    assert.equal((await core.accounts.authenticateApiKey(fresh))?.apiKey?.name, 'default');
    assert.ok(await core.accounts.authenticateApiKey(ci));
    assert.ok(
      await core.accounts.authenticateApiKey(readDefault),
      'a read key named default is not the default key',
    );
    assert.equal(await core.accounts.apiKeyHint(account.id), apiKeyHint(fresh));
  });

  test('operator and disabled flags', async () => {
    const { account, apiKey } = await core.accounts.create({ email: 'op@example.test' });
    assert.equal(await core.accounts.isOperator(account.id), false);
    await core.accounts.setOperator(account.id, true);
    assert.equal(await core.accounts.isOperator(account.id), true);
    assert.equal((await core.accounts.authenticateApiKey(apiKey))?.operator, true);
    await core.accounts.setOperator(account.id, false);
    assert.equal(await core.accounts.isOperator(account.id), false);
    await core.accounts.setDisabled(account.id, true);
    assert.equal((await core.accounts.authenticateApiKey(apiKey))?.disabled, true);
    await core.accounts.setDisabled(account.id, false);
    assert.equal((await core.accounts.authenticateApiKey(apiKey))?.disabled, undefined);
  });
});

// Two nodes on one store (two apps on one PostgreSQL database, or on one SQLite file): a key
// revoked on one is refused by the other on its next request, although the other keeps it in
// memory. On PostgreSQL the revocation reaches the other node's cache by NOTIFY; on SQLite by the
// file's data version (read once per turn of the event loop). The test waits for that signal to be
// heard, never for a time.
describe('a key revoked on one node', () => {
  const twoNodes = twoNodesOnOneStore('keys-nodes-', TEST_ORIGIN);

  test('is refused by the other node on its next request', async () => {
    const [one, two] = twoNodes();
    const password = 'correct horse battery';
    const { account, apiKey: full } = await one.core.accounts.create({
      email: 'nodes@example.test',
      password,
    });
    const { key, apiKey } = await one.core.accounts.createKey(account.id, { name: 'board', scope: 'read' });
    const cookie = await signedInCookie(one.app, { email: account.email, password });
    const status = (secret: string) =>
      two.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(secret) });
    assert.equal((await status(apiKey)).statusCode, 200);
    assert.equal((await status(apiKey)).statusCode, 200, 'node two now keeps the key in memory');

    // Revoked through node one's website API, as the account page does.
    const heard = two.core.accountChanges.heard();
    const revoked = await one.app.inject({
      method: 'DELETE',
      url: `/web/api/account/keys/${key.id}`,
      headers: { cookie, origin: TEST_ORIGIN },
    });
    assert.equal(revoked.statusCode, 204, revoked.body);
    await heard;
    assert.equal(assertError(await status(apiKey), 401, 'invalid_api_key'), 'Invalid API key');
    assert.equal((await status(full)).statusCode, 200, 'the account and its other key are untouched');
  });
});
