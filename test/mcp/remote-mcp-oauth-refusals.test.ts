// Sign-in for hosted MCP clients (issues 32, 38): what /authorize and /token refuse, over HTTP against
// the real app. No redirect before consent: a request with a problem goes to the client's redirect URI
// only once a person has seen that URI on the consent screen; before, it is the website's page naming
// the problem and the destination it did not go to. Every authorization response carries iss (RFC 9207).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answerConsent, MemoryOAuthClient, pkcePair, postForm, problemOf } from '../support/oauth-client.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { INITIALIZE, postMcp } from './remote-mcp-support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const PASSWORD = 'correct horse battery';

describe('remote MCP sign-in: refusals', () => {
  let clientId = '';
  const pkce = pkcePair();
  const authorizeUrl = (overrides: Record<string, string> = {}) => {
    const url = new URL(`${t.baseUrl}/authorize`);
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'st',
      resource: `${t.baseUrl}/mcp`,
      ...overrides,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url;
  };
  const codeFor = async () => (await consent(authorizeUrl())).searchParams.get('code') ?? '';
  const exchange = (code: string, overrides: Record<string, string> = {}) =>
    postForm(`${t.baseUrl}/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: `${t.baseUrl}/mcp`,
      ...overrides,
    });

  let t: TestApp;
  let cookie = '';
  const consent = async (url: URL) => (await answerConsent(t.baseUrl, cookie, url, true)).redirect;
  const initializeWith = (token: string) =>
    postMcp(t.baseUrl, { authorization: `Bearer ${token}` }, INITIALIZE);

  before(async () => {
    t = await createTestApp({ listen: true });
    const { email } = await t.createAccount(undefined, { tier: 'pro', password: PASSWORD });
    cookie = await signedInCookie(t.app, { email, password: PASSWORD }, { origin: t.baseUrl });
    const registered = await fetch(`${t.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(new MemoryOAuthClient(REDIRECT).clientMetadata),
    });
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });

  after(async () => {
    await t?.close();
  });

  it('a wrong PKCE verifier', async () => {
    const answer = await exchange(await codeFor(), { code_verifier: pkcePair().verifier });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_grant');
    assert.equal(typeof answer.body.error_description, 'string');
  });

  it('a plain (non-S256) challenge (the redirect URI was seen on the consent screen: redirected, with iss)', async () => {
    const answer = await fetch(authorizeUrl({ code_challenge_method: 'plain' }), { redirect: 'manual' });
    assert.equal(answer.status, 302);
    const location = new URL(answer.headers.get('location') ?? '');
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.equal(
      location.searchParams.get('error_description'),
      'The code_challenge_method must be S256 (the plain method is not accepted).',
    );
    assert.equal(location.searchParams.get('iss'), `${t.baseUrl}/`);
    assert.equal(location.searchParams.get('state'), 'st');
  });

  it('an unregistered redirect_uri, at authorization and at the token endpoint', async () => {
    const answer = await fetch(authorizeUrl({ redirect_uri: 'https://evil.example/cb' }), {
      redirect: 'manual',
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers.get('location'), null);
    assert.deepEqual(problemOf(await answer.text()), {
      problem: 'The address this request asks to send the answer to is not one the app registered.',
      destination: 'https://evil.example/cb',
    });
    const exchanged = await exchange(await codeFor(), { redirect_uri: 'http://127.0.0.1:7777/other' });
    assert.equal(exchanged.body.error, 'invalid_grant');
  });

  it('no redirect before consent: a client no person has seen gets a page, not a redirect', async () => {
    const registered = await fetch(`${t.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://evil.example/landing'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const evil = ((await registered.json()) as { client_id: string }).client_id;
    const tricks: Array<[Record<string, string>, string]> = [
      [
        { response_type: 'token' },
        'Atelier issues authorization codes only (response_type=code), not "token".',
      ],
      [
        { code_challenge: '' },
        'The request has no code_challenge; Atelier requires PKCE (RFC 7636) with the S256 method.',
      ],
      [{ resource: 'https://other.example/mcp' }, `This Atelier issues tokens for ${t.baseUrl}/mcp only.`],
    ];
    for (const [overrides, problem] of tricks) {
      const url = authorizeUrl({
        client_id: evil,
        redirect_uri: 'https://evil.example/landing',
        ...overrides,
      });
      const answer = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
      assert.equal(answer.status, 400, JSON.stringify(overrides));
      assert.equal(answer.headers.get('location'), null);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.deepEqual(problemOf(await answer.text()), {
        problem,
        destination: 'https://evil.example/landing',
      });
    }
    // Without redirect_uri (the client's only one is used): still no redirect.
    const bare = new URL(`${t.baseUrl}/authorize`);
    bare.searchParams.set('client_id', evil);
    bare.searchParams.set('response_type', 'token');
    const answer = await fetch(bare, { redirect: 'manual' });
    assert.equal(answer.status, 400);
    assert.equal(problemOf(await answer.text())?.destination, 'https://evil.example/landing');
    const unknown = await fetch(authorizeUrl({ client_id: 'no-such-client' }), { redirect: 'manual' });
    assert.equal(unknown.status, 400);
    assert.match(problemOf(await unknown.text())?.problem ?? '', /not registered with this Atelier/);
  });

  it('the consent answer carries iss (RFC 9207)', async () => {
    const redirect = await consent(authorizeUrl());
    assert.equal(redirect.searchParams.get('iss'), `${t.baseUrl}/`);
  });

  it('a redirect URI that is plain http off loopback cannot be registered', async () => {
    const registered = await fetch(`${t.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://evil.example/cb'],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(registered.status, 400);
    assert.equal(((await registered.json()) as { error: string }).error, 'invalid_client_metadata');
  });

  it('a resource other than this /mcp, at authorization and at the token endpoint', async () => {
    const answer = await fetch(authorizeUrl({ resource: 'https://other.example/mcp' }), {
      redirect: 'manual',
    });
    assert.equal(answer.status, 302);
    assert.equal(new URL(answer.headers.get('location') ?? '').searchParams.get('error'), 'invalid_target');
    const exchanged = await exchange(await codeFor(), { resource: 'https://other.example/mcp' });
    assert.equal(exchanged.body.error, 'invalid_target');
  });

  it('a code used twice: refused, and the tokens it gave are revoked', async () => {
    const code = await codeFor();
    const first = await exchange(code);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const token = String(first.body.access_token);
    assert.equal((await initializeWith(token)).status, 200);
    const second = await exchange(code);
    assert.equal(second.body.error, 'invalid_grant');
    assert.equal((await initializeWith(token)).status, 401);
  });

  it('consent needs a session and a same-origin request', async () => {
    const authorize = await fetch(authorizeUrl(), { redirect: 'manual' });
    const id = new URL(authorize.headers.get('location') ?? '').searchParams.get('request');
    const url = `/web/api/oauth/authorizations/${id}`;
    assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 401);
    const crossSite = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, origin: 'https://evil.example' },
      payload: { allow: true },
    });
    assert.equal(crossSite.statusCode, 403);
  });
});
