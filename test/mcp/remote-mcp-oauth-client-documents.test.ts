// Sign-in for hosted MCP clients identified by a client ID metadata document (issue 38; MCP
// authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document), over HTTP against the real
// app: the MCP SDK's client names itself by the https URL of its document (`clientMetadataUrl`), the
// server reads it through the safe fetcher (its loopback host exempted as ATELIER_UPLOAD_ALLOWED_HOSTS
// exempts any host in development), the consent screen names the app and the host publishing it, and
// the token endpoint takes the URL as a public client. Each problem with the document is the 400 page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpsDocuments, startHttpsDocuments } from '../fakes/tls/https-documents.js';
import {
  answerConsent,
  connectSignedIn,
  finishSignIn,
  MemoryOAuthClient,
  pkcePair,
  problemOf,
  startSignIn,
} from '../support/oauth-client.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const PASSWORD = 'correct horse battery';

/** The SDK's client provider, naming itself by its document's URL instead of registering. */
class DocumentOAuthClient extends MemoryOAuthClient {
  constructor(readonly clientMetadataUrl: string) {
    super(REDIRECT, 'Doc Agent');
  }
}

describe('remote MCP sign-in: client ID metadata documents', () => {
  let t: TestApp;
  let docs: HttpsDocuments;
  let cookie = '';
  const pkce = pkcePair();
  const documentOf = (clientId: string, extra: Record<string, unknown> = {}) => ({
    client_id: clientId,
    client_name: 'Doc Agent',
    client_uri: 'https://app.example',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  const authorizeUrl = (clientId: string, redirect = REDIRECT) => {
    const url = new URL(`${t.baseUrl}/authorize`);
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'st',
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url;
  };
  /** /authorize's answer to a request naming `clientId`: the problem page (no redirect), read. */
  async function refusal(clientId: string, redirect = REDIRECT) {
    const answer = await fetch(authorizeUrl(clientId, redirect), { redirect: 'manual' });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers.get('location'), null);
    return problemOf(await answer.text());
  }

  before(async () => {
    docs = await startHttpsDocuments();
    t = await createTestApp({ listen: true, env: { ATELIER_UPLOAD_ALLOWED_HOSTS: docs.allowedHost } });
    const { email } = await t.createAccount(undefined, { tier: 'pro', password: PASSWORD });
    cookie = await signedInCookie(t.app, { email, password: PASSWORD }, { origin: t.baseUrl });
  });
  after(async () => {
    await t?.close();
    await docs?.close();
  });

  it('is advertised in the authorization-server metadata', async () => {
    const metadata = (await (
      await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    assert.equal(metadata.client_id_metadata_document_supported, true);
  });

  it('the SDK client signs in with its document URL as client_id (no registration), consents, calls a tool', async () => {
    const url = `${docs.origin}/apps/doc-agent.json`;
    docs.set('/apps/doc-agent.json', {
      body: documentOf(url),
      headers: { 'cache-control': 'public, max-age=600' },
    });
    const client = new DocumentOAuthClient(url);
    const authorizationUrl = await startSignIn(t.baseUrl, client);
    assert.equal(authorizationUrl.searchParams.get('client_id'), url);
    const { question, redirect } = await answerConsent(t.baseUrl, cookie, authorizationUrl, true);
    assert.equal(question.client_id, url);
    assert.equal(question.client_name, 'Doc Agent');
    assert.equal(question.client_host, docs.allowedHost);
    assert.equal(question.redirect_host, '127.0.0.1:7777');
    await finishSignIn(t.baseUrl, client, redirect.searchParams.get('code') ?? '');
    assert.equal(client.info?.client_id, url);
    const mcp = await connectSignedIn(t.baseUrl, client);
    try {
      const status = (await mcp.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
      assert.equal(status.isError, undefined);
    } finally {
      await mcp.close();
    }
    // Kept per its Cache-Control: a second authorization reads no document.
    const again = await fetch(authorizeUrl(url), { redirect: 'manual' });
    assert.equal(again.status, 302);
    assert.equal(docs.hits('/apps/doc-agent.json'), 1);
  });

  it('a document that says no-store is read at every authorization', async () => {
    const url = `${docs.origin}/apps/fresh.json`;
    docs.set('/apps/fresh.json', { body: documentOf(url), headers: { 'cache-control': 'no-store' } });
    for (let i = 0; i < 2; i += 1)
      assert.equal((await fetch(authorizeUrl(url), { redirect: 'manual' })).status, 302);
    assert.equal(docs.hits('/apps/fresh.json'), 2);
  });

  it('refusals: each is the problem page, and nothing is redirected', async () => {
    const cases: Array<{
      path: string;
      document?: unknown;
      headers?: Record<string, string>;
      problem: RegExp;
    }> = [
      {
        path: '/apps/other.json',
        document: documentOf(`${docs.origin}/apps/someone-else.json`),
        problem: /names a different client_id/,
      },
      {
        path: '/apps/big.json',
        document: documentOf(`${docs.origin}/apps/big.json`, { padding: 'x'.repeat(6 * 1024) }),
        problem: /larger than 5 KiB/,
      },
      {
        path: '/apps/html.json',
        document: '<html>not json</html>',
        headers: { 'content-type': 'text/html' },
        problem: /not served as JSON/,
      },
      { path: '/apps/broken.json', document: '{"client_id": ', problem: /not valid JSON/ },
      {
        path: '/apps/secret.json',
        document: documentOf(`${docs.origin}/apps/secret.json`, { client_secret: 's3cret' }),
        problem: /carries a client_secret/,
      },
      {
        path: '/apps/nameless.json',
        document: documentOf(`${docs.origin}/apps/nameless.json`, { client_name: undefined }),
        problem: /has no client_name/,
      },
      { path: '/apps/missing.json', problem: /answered HTTP 404/ },
    ];
    for (const { path, document, headers, problem } of cases) {
      if (document !== undefined) docs.set(path, { body: document, ...(headers ? { headers } : {}) });
      const stated = await refusal(`${docs.origin}${path}`);
      assert.match(stated?.problem ?? '', problem, path);
      assert.equal(stated?.destination, REDIRECT, path);
    }
  });

  it('refusals: a redirect_uri not listed exactly, http, no path, and a host the address policy refuses', async () => {
    const url = `${docs.origin}/apps/listed.json`;
    docs.set('/apps/listed.json', { body: documentOf(url) });
    // Loopback on another port: a registration would match it (RFC 8252); a document's list is exact.
    const otherPort = await refusal(url, 'http://127.0.0.1:7778/callback');
    assert.match(otherPort?.problem ?? '', /not one the app registered/);
    assert.equal(otherPort?.destination, 'http://127.0.0.1:7778/callback');

    const plain = await refusal(`http://${docs.allowedHost}/apps/listed.json`);
    assert.match(plain?.problem ?? '', /not https/);
    const rootOnly = await refusal(`${docs.origin}/`);
    assert.match(rootOnly?.problem ?? '', /has no path/);
    const dots = await refusal(`${docs.origin}/apps/../listed.json`);
    assert.match(dots?.problem ?? '', /"\." or "\.\." path segments/);
    // The same server under a name the allow-list does not exempt: refused before any connection.
    const before = docs.hits('/apps/listed.json');
    const notPublic = await refusal(`https://127.0.0.1:${docs.allowedHost.split(':')[1]}/apps/listed.json`);
    assert.match(notPublic?.problem ?? '', /ATELIER_UPLOAD_ALLOWED_HOSTS|public/);
    assert.equal(docs.hits('/apps/listed.json'), before);
  });
});
