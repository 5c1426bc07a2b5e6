// Sign-in for hosted MCP clients across api nodes (issue 32): two nodes on one store (two processes
// on one SQLite file, or two nodes on one PostgreSQL database). A token works on either node; an
// app revoked on the account page of one node is refused by the other at once, as is a token of an
// account disabled on one node. Tokens are read from the store on every use: nothing to propagate.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { grantsOver } from '../support/oauth-contract.js';
import { twoNodesOnOneStore } from '../support/two-nodes.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';
import { INITIALIZE } from './remote-mcp-support.js';

const PASSWORD = 'correct horse battery';

describe('remote MCP sign-in on two nodes', () => {
  const twoNodes = twoNodesOnOneStore('mcp-oauth-nodes-', TEST_ORIGIN);

  test('a token revoked, or its account disabled, on one node is refused by the other at once', async () => {
    const [one, two] = twoNodes();
    const { account } = await one.core.accounts.create({ email: 'agent@example.test', password: PASSWORD });
    const { tokensFor } = await grantsOver(one.core, TEST_ORIGIN);
    const initialize = (token: string) =>
      two.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: INITIALIZE,
      });

    const revoked = await tokensFor(account.id);
    assert.equal((await initialize(revoked.access_token)).statusCode, 200);
    const cookie = await signedInCookie(one.app, { email: account.email, password: PASSWORD });
    const listed = await one.app.inject({
      method: 'GET',
      url: '/web/api/account/oauth-grants',
      headers: { cookie },
    });
    const [grant] = (listed.json() as { grants: Array<{ id: string }> }).grants;
    assert.ok(grant);
    const revoke = await one.app.inject({
      method: 'DELETE',
      url: `/web/api/account/oauth-grants/${grant.id}`,
      headers: { cookie, origin: TEST_ORIGIN },
    });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await initialize(revoked.access_token)).statusCode, 401);

    const disabled = await tokensFor(account.id);
    assert.equal((await initialize(disabled.access_token)).statusCode, 200);
    await one.core.accounts.disable(account.id);
    assert.equal((await initialize(disabled.access_token)).statusCode, 401);
    await one.core.accounts.enable(account.id);
    assert.equal((await initialize(disabled.access_token)).statusCode, 200, 'enabled again, the token works');
  });
});
