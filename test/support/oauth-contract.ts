import assert from 'node:assert/strict';
import type { Core } from '../../src/core.js';
import type { contractChecker } from './openapi-contract.js';
import type { TestApp } from './test-server.js';

const REDIRECT = 'https://agent.example/callback';
const CLIENT = 'contract-agent';

/** The app's OAuth grants service, made again over the same store (what the app builds for /mcp). */
export async function grantsOver(core: Core, publicBaseUrl: string) {
  const grants = core.oauthGrants(new URL(`${publicBaseUrl}/mcp`).href);
  if (!(await grants.getClient(CLIENT))) {
    await grants.registerClient({ client_id: CLIENT, client_name: 'Contract', redirect_uris: [REDIRECT] });
  }
  const start = async () => {
    const id = await grants.startAuthorization({
      clientId: CLIENT,
      redirectUri: REDIRECT,
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      state: 'contract',
      resource: undefined,
    });
    assert.equal(typeof id, 'string');
    return id as string;
  };
  /** The code of an allowed authorization, exchanged: an access token acting as the account on /mcp. */
  const exchange = async (code: string) => {
    const tokens = await grants.exchangeCode({
      clientId: CLIENT,
      code,
      redirectUri: REDIRECT,
      resource: undefined,
    });
    assert.ok('access_token' in tokens);
    return tokens;
  };
  const tokensFor = async (accountId: string) => {
    const redirect = await grants.decide(await start(), accountId, true);
    return exchange(new URL(redirect ?? '').searchParams.get('code') ?? '');
  };
  return { grants, start, exchange, tokensFor };
}

/**
 * Sign-in for hosted MCP clients, the website's part (issue 32): the consent page's question and
 * answer, and the account's grants listed and revoked, a success and errors each. The OAuth
 * endpoints themselves speak OAuth's wire over real connections (test/mcp/remote-mcp-oauth.test.ts);
 * here a client and its authorizations are made through the same store.
 */
export async function exerciseOAuthWebsiteRoutes(
  t: TestApp,
  exercise: ReturnType<typeof contractChecker>['exercise'],
  web: { cookie: string; origin: string },
) {
  const { start, exchange } = await grantsOver(t.core, t.baseUrl);
  const headers = { ...web, 'content-type': 'application/json' };
  const authorization = '/web/api/oauth/authorizations/{id}';
  const pending = await start();
  const url = authorization.replace('{id}', pending);
  await exercise('GET', authorization, { url, headers: { cookie: web.cookie } }, 200);
  await exercise('GET', authorization, { url }, 401);
  await exercise('POST', authorization, { url, headers, payload: { allow: 'yes' } }, 400);
  await exercise(
    'POST',
    authorization,
    { url, headers: { cookie: web.cookie }, payload: { allow: true } },
    403,
  );
  const allowed = await exercise('POST', authorization, { url, headers, payload: { allow: true } }, 200);
  await exercise('GET', authorization, { url, headers: { cookie: web.cookie } }, 404);
  await exercise('POST', authorization, { url, headers, payload: { allow: true } }, 404);
  const declined = authorization.replace('{id}', await start());
  await exercise('POST', authorization, { url: declined, headers, payload: { allow: false } }, 200);

  const code =
    new URL((allowed.json() as { redirect_to: string }).redirect_to).searchParams.get('code') ?? '';
  await exchange(code);
  const list = '/web/api/account/oauth-grants';
  const listed = await exercise('GET', list, { url: list, headers: { cookie: web.cookie } }, 200);
  await exercise('GET', list, { url: list }, 401);
  const [grant] = (listed.json() as { grants: Array<{ id: string }> }).grants;
  assert.ok(grant);
  const one = `${list}/{id}`;
  await exercise('DELETE', one, { url: `${list}/${grant.id}`, headers: { cookie: web.cookie } }, 403);
  await exercise('DELETE', one, { url: `${list}/${grant.id}`, headers: web }, 204);
  await exercise('DELETE', one, { url: `${list}/${grant.id}`, headers: web }, 404);
}
