import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { type Config, loadConfig } from '../../../src/config/config.js';
import { type Core, createCore } from '../../../src/core.js';
import { ACCOUNT_DISABLED } from '../../../src/http/authentication.js';
import { assertError, bearer } from '../../support/api-helpers.js';
import { freshTestDataEnv, removeTestData } from '../../support/test-database.js';
import { isSignedIn, signedInCookie } from '../../support/website-session.js';

const PASSWORD = 'correct horse battery';

// Issue 25, item 4: two nodes on one store (two processes on one SQLite file, or two nodes on one
// PostgreSQL database). An account disabled on one is refused by the other at once: its key, kept
// in the other's memory, and its session there.
describe('an account disabled on one node', () => {
  let config: Config;
  const nodes: Array<{ core: Core; app: FastifyInstance }> = [];

  before(async () => {
    config = loadConfig({
      ...(await freshTestDataEnv('disable-')),
      ATELIER_PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      ATELIER_DEMO_ACCOUNT: 'false',
      LOG_LEVEL: 'silent',
    });
    for (let i = 0; i < 2; i++) {
      const core = await createCore(config);
      nodes.push({ core, app: await buildApp(core) });
    }
  });
  after(async () => {
    for (const { core, app } of nodes.reverse()) {
      await app.close();
      await core.close(0);
    }
    await removeTestData(config);
  });

  test('is refused by the other node at once: its API key and its sessions', async () => {
    const [one, two] = nodes as [{ core: Core; app: FastifyInstance }, { core: Core; app: FastifyInstance }];
    const { account, apiKey } = await one.core.accounts.create({
      email: 'gone@example.test',
      password: PASSWORD,
    });
    const status = () =>
      two.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal((await status()).statusCode, 200);
    assert.equal((await status()).statusCode, 200, 'node two now keeps the key in memory');
    const cookie = await signedInCookie(two.app, { email: account.email, password: PASSWORD });
    assert.equal(await isSignedIn(two.app, cookie), true);

    const heard = two.core.accountChanges.heard();
    await one.core.accounts.disable(account.id);
    await heard;
    assert.equal(assertError(await status(), 401, 'invalid_api_key'), ACCOUNT_DISABLED);
    assert.equal(await isSignedIn(two.app, cookie), false);

    const again = two.core.accountChanges.heard();
    await one.core.accounts.enable(account.id);
    await again;
    assert.equal((await status()).statusCode, 200, 'enabled on one node, the key works on the other');
    assert.equal(await isSignedIn(two.app, cookie), false, 'the session stays ended');
  });
});
