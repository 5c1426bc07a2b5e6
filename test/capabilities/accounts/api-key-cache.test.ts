import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AccountChanges } from '../../../src/capabilities/accounts/account-changes.js';
import type { Account } from '../../../src/capabilities/accounts/accounts-repository.js';
import {
  API_KEY_CACHE_MAX_AGE_MS,
  createApiKeyCache,
} from '../../../src/capabilities/accounts/api-key-cache.js';
import { type Core, createCore } from '../../../src/core.js';
import { type Config, loadConfig } from '../../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../../support/test-database.js';

const account: Account = { id: 'acc_1', email: 'a@example.test', tier: 'standard', createdAt: 0 };

/** A cache over a counting lookup, a stamp the test moves, and a clock it sets. */
function fixture() {
  const state = { stamp: 0 as number | undefined, now: 0, lookups: 0 };
  const changes: AccountChanges = {
    stamp: () => state.stamp,
    announce: async () => {},
    changedHere: () => {},
    heard: async () => {},
  };
  const lookup = async (hash: string) => {
    state.lookups++;
    return hash === 'known' ? account : undefined;
  };
  const find = createApiKeyCache({ lookup, changes, clock: { now: () => state.now } });
  return { state, find };
}

describe('API-key cache', () => {
  test('a known key is read once while nothing changes', async () => {
    const { state, find } = fixture();
    assert.equal(await find('known'), account);
    assert.equal(await find('known'), account);
    assert.equal(state.lookups, 1);
  });

  test('a change of accounts, or a minute, makes it read again', async () => {
    const { state, find } = fixture();
    await find('known');
    state.stamp = 1;
    await find('known');
    assert.equal(state.lookups, 2);
    state.now += API_KEY_CACHE_MAX_AGE_MS;
    await find('known');
    assert.equal(state.lookups, 3);
  });

  test('nothing is kept while changes cannot be heard, nor for unknown keys', async () => {
    const { state, find } = fixture();
    state.stamp = undefined;
    await find('known');
    await find('known');
    assert.equal(state.lookups, 2);
    state.stamp = 0;
    assert.equal(await find('unknown'), undefined);
    assert.equal(await find('unknown'), undefined);
    assert.equal(state.lookups, 4);
  });
});

// Two cores on one store play two processes (the server and the CLI on one SQLite file), or two
// nodes on PostgreSQL: a change made by one must reach the other's cache.
describe('API keys changed by another process', () => {
  let config: Config;
  let server: Core;
  let cli: Core;

  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('key-cache-')), LOG_LEVEL: 'silent' });
    server = await createCore(config);
    cli = await createCore(config);
  });
  after(async () => {
    await cli.close();
    await server.close();
    await removeTestData(config);
  });

  test('a key rotated elsewhere stops working, and the new one works', async () => {
    const { account: created, apiKey } = await cli.accounts.create({ email: 'rotate@example.test' });
    assert.equal((await server.accounts.authenticateApiKey(apiKey))?.id, created.id);
    assert.equal((await server.accounts.authenticateApiKey(apiKey))?.id, created.id);
    const heard = server.accountChanges.heard();
    const newKey = await cli.accounts.rotateApiKey(created.id);
    await heard;
    assert.equal(await server.accounts.authenticateApiKey(apiKey), undefined);
    assert.equal((await server.accounts.authenticateApiKey(newKey))?.id, created.id);
  });

  test('a tier changed elsewhere is the tier the next request sees', async () => {
    const { account: created, apiKey } = await cli.accounts.create({ email: 'tier@example.test' });
    assert.equal((await server.accounts.authenticateApiKey(apiKey))?.tier, 'trial');
    const heard = server.accountChanges.heard();
    await cli.accounts.setTier(created.id, 'pro');
    await heard;
    assert.equal((await server.accounts.authenticateApiKey(apiKey))?.tier, 'pro');
  });

  test("an account's upstream key set or removed elsewhere, or here, is the key its next call uses", async () => {
    const { account: created } = await cli.accounts.create({ email: 'upstream@example.test' });
    const resolve = () => server.accounts.keyResolver.resolve(created.id, 'openai');
    const deployment = await resolve();
    let heard = server.accountChanges.heard();
    await cli.accounts.setUpstreamKey(created.id, 'openai', 'sk-first');
    await heard;
    assert.equal(await resolve(), 'sk-first');
    assert.equal(await resolve(), 'sk-first');
    heard = server.accountChanges.heard();
    await cli.accounts.setUpstreamKey(created.id, 'openai', 'sk-second');
    await heard;
    assert.equal(await resolve(), 'sk-second');
    heard = server.accountChanges.heard();
    await cli.accounts.setUpstreamKey(created.id, 'openai', '');
    await heard;
    assert.equal(await resolve(), deployment);
    await server.accounts.setUpstreamKey(created.id, 'openai', 'sk-here');
    assert.equal(await resolve(), 'sk-here');
  });

  test('a key rotated in this process stops working at once', async () => {
    const { account: created, apiKey } = await server.accounts.create({ email: 'here@example.test' });
    assert.ok(await server.accounts.authenticateApiKey(apiKey));
    const newKey = await server.accounts.rotateApiKey(created.id);
    assert.equal(await server.accounts.authenticateApiKey(apiKey), undefined);
    assert.equal((await server.accounts.authenticateApiKey(newKey))?.id, created.id);
  });
});
