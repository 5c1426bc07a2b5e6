import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCOUNT_DISABLED } from '../../../src/edges/http/authentication.js';
import { assertError, bearer } from '../../support/api-helpers.js';
import { twoNodesOnOneStore } from '../../support/two-nodes.js';
import { isSignedIn, signedInCookie } from '../../support/website-session.js';

const PASSWORD = 'correct horse battery';

// Issue 25, item 4: two nodes on one store (two processes on one SQLite file, or two nodes on one
// PostgreSQL database). An account disabled on one is refused by the other at once: its key, kept
// in the other's memory, and its session there.
describe('an account disabled on one node', () => {
  const twoNodes = twoNodesOnOneStore('disable-', 'http://127.0.0.1:8080');

  test('is refused by the other node at once: its API key and its sessions', async () => {
    const [one, two] = twoNodes();
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
