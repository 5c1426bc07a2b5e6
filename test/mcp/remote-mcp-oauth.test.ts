// Sign-in for hosted MCP clients (issue 32) over HTTP against the real app: discovery from /mcp's
// 401, dynamic registration, authorization through the website's consent (a signed-in session),
// the code exchanged with PKCE by the MCP SDK's own client auth, a tool called with the SDK's
// client, refresh, revocation; and what must be refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  answerConsent,
  connectSignedIn,
  finishSignIn,
  MemoryOAuthClient,
  pkcePair,
  postForm,
  startSignIn,
} from '../support/oauth-client.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { INITIALIZE, postMcp } from './remote-mcp-support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const PASSWORD = 'correct horse battery';

describe('remote MCP: sign-in with OAuth', () => {
  let t: TestApp;
  let email = '';
  let accountId = '';
  let cookie = '';
  const openClients: Client[] = [];

  /** The website's answer for the signed-in account: where the browser goes (the code, or a denial). */
  async function consent(authorizationUrl: URL, allow = true, clientName = 'Test Agent'): Promise<URL> {
    const { question, redirect } = await answerConsent(t.baseUrl, cookie, authorizationUrl, allow);
    assert.equal(question.client_name, clientName);
    assert.equal(question.redirect_host, '127.0.0.1:7777');
    assert.equal(question.account_email, email);
    return redirect;
  }

  /** A signed-in SDK client: discovery, registration, consent, exchange. */
  async function signIn(client = new MemoryOAuthClient(REDIRECT)): Promise<MemoryOAuthClient> {
    const redirect = await consent(await startSignIn(t.baseUrl, client), true, client.clientName);
    assert.equal(redirect.searchParams.get('state'), client.authorizationUrl?.searchParams.get('state'));
    await finishSignIn(t.baseUrl, client, redirect.searchParams.get('code') ?? '');
    return client;
  }

  const status = async (mcp: Client) =>
    (await mcp.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
  const initializeWith = (token: string) =>
    postMcp(t.baseUrl, { authorization: `Bearer ${token}` }, INITIALIZE);

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ email, id: accountId } = await t.createAccount(undefined, { tier: 'pro', password: PASSWORD }));
    cookie = await signedInCookie(t.app, { email, password: PASSWORD }, { origin: t.baseUrl });
  });
  after(async () => {
    for (const mcp of openClients) await mcp.close();
    await t?.close();
  });

  it('a 401 from /mcp names the protected-resource metadata, which names the authorization server', async () => {
    const refused = await postMcp(t.baseUrl, {}, INITIALIZE);
    assert.equal(refused.status, 401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    const metadataUrl = `${t.baseUrl}/.well-known/oauth-protected-resource/mcp`;
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), challenge);
    assert.ok(challenge.includes('scope="mcp"'), challenge);
    assert.ok(!challenge.includes('error='), 'no error code without credentials (RFC 6750 §3.1)');
    for (const url of [metadataUrl, `${t.baseUrl}/.well-known/oauth-protected-resource`]) {
      const resource = (await (await fetch(url)).json()) as Record<string, unknown>;
      assert.equal(resource.resource, `${t.baseUrl}/mcp`);
      assert.deepEqual(resource.authorization_servers, [`${t.baseUrl}/`]);
    }
    const server = (await (
      await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    assert.equal(server.issuer, `${t.baseUrl}/`);
    assert.deepEqual(server.code_challenge_methods_supported, ['S256']);
    assert.equal(server.registration_endpoint, `${t.baseUrl}/register`);
    assert.equal(server.revocation_endpoint, `${t.baseUrl}/revoke`);
    assert.deepEqual(server.grant_types_supported, ['authorization_code', 'refresh_token']);
    // Public clients revoke with `none` (as the revocation below does); responses carry iss (RFC 9207).
    assert.deepEqual(server.revocation_endpoint_auth_methods_supported, ['client_secret_post', 'none']);
    assert.equal(server.authorization_response_iss_parameter_supported, true);
  });

  it('registers, consents, exchanges with PKCE, calls a tool, refreshes and revokes', async () => {
    const client = await signIn();
    const first = client.saved;
    assert.ok(first, 'tokens saved');
    assert.ok(first.access_token.startsWith('atl_oat_') && first.refresh_token);
    const mcp = await connectSignedIn(t.baseUrl, client);
    openClients.push(mcp);
    const result = await status(mcp);
    assert.equal(result.isError, undefined, JSON.stringify(result.content[0]));
    assert.equal((result.structuredContent as { tier: string }).tier, 'pro');

    // The token acts on /mcp only: /api/v1 refuses it (it was issued for /mcp, RFC 8707).
    const onApi = await fetch(`${t.baseUrl}/api/v1/user/status`, {
      headers: { authorization: `Bearer ${first.access_token}` },
    });
    assert.equal(onApi.status, 401);

    // Refresh: new tokens; the old access and refresh tokens stop working.
    const clientId = client.info?.client_id ?? '';
    const refreshed = await postForm(`${t.baseUrl}/token`, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
      client_id: clientId,
      resource: `${t.baseUrl}/mcp`,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const fresh = refreshed.body as { access_token: string; refresh_token: string };
    assert.equal((await initializeWith(first.access_token)).status, 401);
    assert.equal((await initializeWith(fresh.access_token)).status, 200);

    // The SDK's client refreshes by itself too.
    client.saveTokens({ ...client.saved, ...fresh, token_type: 'Bearer' });
    assert.equal(await finishSignInByRefresh(client), 'AUTHORIZED');
    assert.notEqual(client.saved?.access_token, fresh.access_token);
    assert.equal((await initializeWith(client.saved?.access_token ?? '')).status, 200);

    // Revocation (RFC 7009) refuses the token at once.
    const revoked = await postForm(`${t.baseUrl}/revoke`, {
      token: client.saved?.access_token ?? '',
      client_id: clientId,
    });
    assert.equal(revoked.status, 200);
    const refusal = await initializeWith(client.saved?.access_token ?? '');
    assert.equal(refusal.status, 401);
    assert.match(refusal.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('a refresh token presented after it was replaced ends the whole grant (reuse detection)', async () => {
    const client = await signIn();
    const clientId = client.info?.client_id ?? '';
    const refresh = (token: string) =>
      postForm(`${t.baseUrl}/token`, {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: clientId,
      });
    const first = client.saved?.refresh_token ?? '';
    const rotated = await refresh(first);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const newest = rotated.body as { access_token: string; refresh_token: string };
    assert.equal((await initializeWith(newest.access_token)).status, 200);
    const again = await refresh(first);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(String(again.body.error_description), /already used and replaced/);
    assert.equal((await initializeWith(newest.access_token)).status, 401, 'the newest access token ends too');
    assert.equal(
      (await refresh(newest.refresh_token)).body.error,
      'invalid_grant',
      'and the newest refresh token',
    );
  });

  it('the account page lists the signed-in app and revoking it there refuses its token', async () => {
    const client = await signIn(new MemoryOAuthClient(REDIRECT, 'Listed Agent'));
    const listed = await t.app.inject({
      method: 'GET',
      url: '/web/api/account/oauth-grants',
      headers: { cookie },
    });
    assert.equal(listed.statusCode, 200);
    const grant = (listed.json() as { grants: Array<{ id: string; client_name: string }> }).grants.find(
      (one) => one.client_name === 'Listed Agent',
    );
    assert.ok(grant);
    assert.equal((await initializeWith(client.saved?.access_token ?? '')).status, 200);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/account/oauth-grants/${grant.id}`,
      headers: { cookie, origin: t.baseUrl },
    });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await initializeWith(client.saved?.access_token ?? '')).status, 401);
    const refresh = await postForm(`${t.baseUrl}/token`, {
      grant_type: 'refresh_token',
      refresh_token: client.saved?.refresh_token ?? '',
      client_id: client.info?.client_id ?? '',
    });
    assert.equal(refresh.body.error, 'invalid_grant');
  });

  it('a disabled account’s token is refused', async () => {
    const client = await signIn();
    assert.equal((await initializeWith(client.saved?.access_token ?? '')).status, 200);
    await t.core.accounts.disable(accountId);
    try {
      assert.equal((await initializeWith(client.saved?.access_token ?? '')).status, 401);
    } finally {
      await t.core.accounts.enable(accountId);
      cookie = await signedInCookie(t.app, { email, password: PASSWORD }, { origin: t.baseUrl });
    }
  });

  it('declining answers access_denied to the redirect URI', async () => {
    const client = new MemoryOAuthClient(REDIRECT);
    const redirect = await consent(await startSignIn(t.baseUrl, client), false);
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
    assert.equal(redirect.searchParams.get('error'), 'access_denied');
    assert.equal(redirect.searchParams.get('code'), null);
  });

  it('a confidential client: its secret is sealed in the store and authenticates at the token endpoint', async () => {
    const registered = await fetch(`${t.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Confidential Agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    assert.equal(registered.status, 201);
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    assert.ok(client.client_secret.length >= 32);
    const row = await t.core.resources.db
      .selectFrom('oauth_clients')
      .select('client_json')
      .where('client_id', '=', client.client_id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.client_json.includes(client.client_secret), 'the secret is not kept in clear');

    const pkce = pkcePair();
    const authorize = new URL(`${t.baseUrl}/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'c',
    }))
      authorize.searchParams.set(name, value);
    const code = (await consent(authorize, true, 'Confidential Agent')).searchParams.get('code') ?? '';
    const form = {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
    };
    const wrong = await postForm(`${t.baseUrl}/token`, { ...form, client_secret: 'not-the-secret' });
    assert.equal(wrong.body.error, 'invalid_client');
    const right = await postForm(`${t.baseUrl}/token`, { ...form, client_secret: client.client_secret });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal((await initializeWith(String(right.body.access_token))).status, 200);
  });
});

/** The SDK's auth() with saved tokens: it refreshes them. */
async function finishSignInByRefresh(client: MemoryOAuthClient) {
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const serverUrl = new URL(client.authorizationUrl ?? '');
  return auth(client, { serverUrl: `${serverUrl.origin}/mcp` });
}
