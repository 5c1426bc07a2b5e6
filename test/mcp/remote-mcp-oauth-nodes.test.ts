// Sign-in for hosted MCP clients across api nodes (issue 32): two nodes on one store (two processes
// on one SQLite file, or two nodes on one PostgreSQL database). A token works on either node; an
// app revoked on the account page of one node is refused by the other at once, as is a token of an
// account disabled on one node. Tokens are read from the store on every use: nothing to propagate.
// A refresh token rotated out on one node and presented again on the other ends the whole grant on
// both (issue 38), and the account page says why.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refreshAuthorization, registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import { grantsOver } from '../support/oauth-contract.js';
import { twoNodesOnOneStore } from '../support/two-nodes.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';
import { INITIALIZE } from './remote-mcp-support.js';

const PASSWORD = 'correct horse battery';

describe('remote MCP sign-in on two nodes', () => {
  const twoNodes = twoNodesOnOneStore('mcp-oauth-nodes-', TEST_ORIGIN);
  let urls: Promise<[string, string]> | undefined;
  /** Both nodes listening on loopback (the OAuth endpoints answer real connections), once. */
  const listening = () => {
    urls ??= (async () => {
      const [one, two] = twoNodes();
      return [
        await one.app.listen({ port: 0, host: '127.0.0.1' }),
        await two.app.listen({ port: 0, host: '127.0.0.1' }),
      ] as [string, string];
    })();
    return urls;
  };

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

  test('a rotated-out refresh token presented on the other node ends the whole grant on both', async () => {
    const [one, two] = twoNodes();
    const { account } = await one.core.accounts.create({ email: 'reuse@example.test', password: PASSWORD });
    const { tokensFor } = await grantsOver(one.core, TEST_ORIGIN);
    const [urlOne, urlTwo] = await listening();
    const clientInformation = { client_id: 'contract-agent' };
    const initializeOn = (node: typeof one, token: string) =>
      node.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: INITIALIZE,
      });

    const first = await tokensFor(account.id);
    // The app refreshes on node one, as the SDK's client does; its new tokens work on both nodes.
    const second = await refreshAuthorization(urlOne, {
      clientInformation,
      refreshToken: first.refresh_token,
    });
    assert.ok(second.refresh_token && second.refresh_token !== first.refresh_token);
    assert.equal((await initializeOn(two, second.access_token)).statusCode, 200);

    // Someone holding the first refresh token (copied before the rotation) presents it on node two.
    await assert.rejects(
      refreshAuthorization(urlTwo, { clientInformation, refreshToken: first.refresh_token }),
      (error: Error) => error.name === 'InvalidGrantError' && /already used/.test(error.message),
    );
    // The whole grant is over, on both nodes: the newest access token and refresh token are refused.
    for (const node of [one, two])
      assert.equal((await initializeOn(node, second.access_token)).statusCode, 401);
    await assert.rejects(
      refreshAuthorization(urlOne, { clientInformation, refreshToken: second.refresh_token ?? '' }),
      (error: Error) => error.name === 'InvalidGrantError',
    );

    // The account page (either node) lists the sign-in as ended, and why; it cannot be revoked again.
    const cookie = await signedInCookie(two.app, { email: account.email, password: PASSWORD });
    const listed = await two.app.inject({
      method: 'GET',
      url: '/web/api/account/oauth-grants',
      headers: { cookie },
    });
    const grants = (
      listed.json() as { grants: Array<{ id: string; ended_reason: string | null; ended_at: number | null }> }
    ).grants;
    assert.equal(grants.length, 1);
    assert.equal(grants[0]?.ended_reason, 'refresh_token_reused');
    assert.equal(typeof grants[0]?.ended_at, 'number');
    const revoke = await one.app.inject({
      method: 'DELETE',
      url: `/web/api/account/oauth-grants/${grants[0]?.id}`,
      headers: { cookie, origin: TEST_ORIGIN },
    });
    assert.equal(revoke.statusCode, 404);

    // A new sign-in works as before (the app asks the person again).
    const fresh = await tokensFor(account.id);
    assert.equal((await initializeOn(one, fresh.access_token)).statusCode, 200);
  });

  test("the OAuth endpoints' limits are shared by the nodes: 20 registrations an hour from an address, whichever node", async () => {
    const [urlOne, urlTwo] = await listening();
    const clientMetadata = {
      redirect_uris: ['http://127.0.0.1:7777/callback'],
      token_endpoint_auth_method: 'none',
    };
    // The tests above registered none over HTTP; 10 on each node take the whole budget of 20.
    for (let i = 0; i < 10; i++) {
      for (const url of [urlOne, urlTwo])
        assert.ok((await registerClient(url, { clientMetadata })).client_id);
    }
    for (const url of [urlOne, urlTwo]) {
      const refused = await fetch(`${url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(clientMetadata),
      });
      assert.equal(refused.status, 429, url);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.equal(((await refused.json()) as { error: string }).error, 'too_many_requests');
    }
  });

  test('a client registered a day ago that never completed a sign-in is removed (with what it started)', async () => {
    const [one, two] = twoNodes();
    const { grants, tokensFor } = await grantsOver(one.core, TEST_ORIGIN);
    const { account } = await one.core.accounts.create({ email: 'unused@example.test', password: PASSWORD });
    await tokensFor(account.id); // the contract client completes a sign-in: it stays
    const register = (client_id: string) =>
      grants.registerClient({ client_id, redirect_uris: ['https://app.example/cb'] });
    await register('never-used');
    const started = await grants.startAuthorization({
      clientId: 'never-used',
      redirectUri: 'https://app.example/cb',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      state: undefined,
      resource: undefined,
    });
    assert.equal(typeof started, 'string');
    // A day and a minute pass (written into the rows: the store's clock is the machine's).
    const dayAgo = Date.now() - 24 * 60 * 60_000 - 60_000;
    await one.core.resources.db.updateTable('oauth_clients').set({ created_at: dayAgo }).execute();
    await register('just-registered');
    const left = await two.core.resources.db.selectFrom('oauth_clients').select('client_id').execute();
    const ids = left.map((row) => row.client_id);
    assert.ok(!ids.includes('never-used'), ids.join());
    assert.ok(ids.includes('contract-agent') && ids.includes('just-registered'), ids.join());
    assert.equal(await grants.pendingAuthorization(started as string), undefined);
  });
});
