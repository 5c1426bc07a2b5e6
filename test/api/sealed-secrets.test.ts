import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Issue 25, item 18: a sealed upstream key is bound to its row (account and provider) so a
// database writer without the master key cannot move it; seals made before that still open.

const MASTER_KEY = randomBytes(32);

/** A seal as Atelier made them before issue 25: AES-256-GCM, no associated data, format v1. */
function legacySeal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', MASTER_KEY, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
}

describe('sealed secrets are bound to their rows', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_MASTER_KEY: MASTER_KEY.toString('hex') } });
  });
  after(() => t.close());

  const sealedKey = async (accountId: string, provider: string) =>
    (
      await t.core.resources.db
        .selectFrom('upstream_keys')
        .select('ciphertext')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .executeTakeFirstOrThrow()
    ).ciphertext;

  test("an upstream key copied into another account's or provider's row does not open there", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    await t.core.accounts.setUpstreamKey(owner.id, 'gemini', 'AIza-owner-key');
    const sealed = await sealedKey(owner.id, 'gemini');
    assert.ok(!sealed.includes('AIza'));
    // A database writer moves the seal: into another account, and into another provider.
    await t.core.resources.db
      .insertInto('upstream_keys')
      .values([
        { account_id: other.id, provider: 'gemini', ciphertext: sealed, created_at: 1 },
        { account_id: owner.id, provider: 'openai', ciphertext: sealed, created_at: 1 },
      ])
      .execute();
    const { resolve } = t.core.accounts.keyResolver;
    assert.equal(await resolve(owner.id, 'gemini'), 'AIza-owner-key');
    assert.equal(await resolve(other.id, 'gemini'), null);
    assert.equal(await resolve(owner.id, 'openai'), null);
  });

  test("a webhook secret copied into another account's row is neither shown nor used there: that account gets its own", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    const secretOf = async (apiKey: string) => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/user/webhook-secret',
        headers: bearer(apiKey),
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().secret as string;
    };
    const ownerSecret = await secretOf(owner.apiKey);
    await secretOf(other.apiKey);
    const { ciphertext } = await t.core.resources.db
      .selectFrom('webhook_secrets')
      .select('ciphertext')
      .where('account_id', '=', owner.id)
      .executeTakeFirstOrThrow();
    await t.core.resources.db
      .updateTable('webhook_secrets')
      .set({ ciphertext })
      .where('account_id', '=', other.id)
      .execute();
    const replaced = await secretOf(other.apiKey);
    assert.notEqual(replaced, ownerSecret);
    assert.equal(await secretOf(other.apiKey), replaced, 'the new secret stays');
    assert.equal(await secretOf(owner.apiKey), ownerSecret);
  });

  test('seals made before binding (v1) are bound to their row at the next start, and still work', async () => {
    const { id, apiKey } = await t.createAccount();
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await t.core.resources.db
      .insertInto('upstream_keys')
      .values({ account_id: id, provider: 'replicate', ciphertext: legacySeal('r8_legacy'), created_at: 1 })
      .execute();
    await t.core.resources.db
      .insertInto('webhook_secrets')
      .values({
        account_id: id,
        ciphertext: legacySeal(webhookSecret),
        created_at: 1,
        previous_ciphertext: null,
        previous_expires_at: null,
      })
      .execute();
    // Another node starting on the same database and master key binds them.
    const restarted = await createCore(
      loadConfig({
        ATELIER_DATA_DIR: t.dataDir,
        ATELIER_DATABASE_URL: t.core.config.databaseUrl,
        ATELIER_MASTER_KEY: MASTER_KEY.toString('hex'),
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      assert.match(await sealedKey(id, 'replicate'), /^v2\./);
      assert.equal(await restarted.accounts.keyResolver.resolve(id, 'replicate'), 'r8_legacy');
      assert.equal(await t.core.accounts.keyResolver.resolve(id, 'replicate'), 'r8_legacy');
      const secret = await t.app.inject({
        method: 'GET',
        url: '/api/v1/user/webhook-secret',
        headers: bearer(apiKey),
      });
      assert.equal(secret.json().secret, webhookSecret);
    } finally {
      await restarted.close(1000);
    }
  });
});
