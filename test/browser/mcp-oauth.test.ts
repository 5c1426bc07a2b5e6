import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { startHttpsDocuments } from '../fakes/tls/https-documents.js';
import { INITIALIZE, postMcp } from '../mcp/remote-mcp-support.js';
import { connectSignedIn, finishSignIn, MemoryOAuthClient, startSignIn } from '../support/oauth-client.js';
import { expectNoAxeViolations } from './axe.js';
import { screenshot } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/** A loopback server standing for the app's redirect URI: it catches the one redirect with the answer. */
async function redirectCatcher(): Promise<{ url: string; answer: Promise<URL>; server: Server }> {
  let caught: (url: URL) => void = () => {};
  const answer = new Promise<URL>((resolve) => {
    caught = resolve;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<p>Signed in; you may close this window.</p>');
    if (url.pathname === '/callback') caught(url);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/callback`, answer, server };
}

/**
 * Issue 32, end to end in Chromium: a hosted MCP client registers over HTTP (the MCP SDK's client
 * auth), the browser opens its authorization URL, signs in on the website, allows on the consent
 * screen, and the redirect carries the code to the app's loopback server; the SDK exchanges it, the
 * SDK's client calls a tool over Streamable HTTP, and revoking the app on the account page refuses
 * its next call. axe-core finds no WCAG 2 A/AA violation on the consent screen, the listing or the
 * confirmation.
 */
/** Where an app publishes its client ID metadata document (HTTPS on loopback, exempted below). */
const documents = await startHttpsDocuments();

describe('website: sign-in for hosted MCP clients (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_UPLOAD_ALLOWED_HOSTS: documents.allowedHost }));
  let page: Page;
  let catcher: Awaited<ReturnType<typeof redirectCatcher>>;
  let client: MemoryOAuthClient;
  let mcp: Client | undefined;

  before(async () => {
    ({ page } = site);
    catcher = await redirectCatcher();
    client = new MemoryOAuthClient(catcher.url, 'Browser Agent');
  });
  after(async () => {
    await mcp?.close();
    catcher?.server.close();
    await documents.close();
  });

  test('no redirect before consent: a request a person never consented to is a page naming the problem and where it did not go', async () => {
    // An attacker registers anonymously with their own landing page, then sends a victim a link to
    // Atelier's own /authorize with a bad parameter: before, a 302 straight to that page.
    const registered = await fetch(`${site.server.baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://evil.example/landing'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const left: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(site.server.baseUrl)) left.push(request.url());
    });
    const answer = await page.goto(
      `/authorize?client_id=${encodeURIComponent(client_id)}&response_type=token`,
    );
    assert.equal(answer?.status(), 400);
    await page.getByRole('heading', { name: 'This sign-in request cannot go on' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/authorize', 'still on Atelier');
    const alert = await page.getByRole('alert').textContent();
    assert.equal(alert, 'Atelier issues authorization codes only (response_type=code), not "token".');
    const destination = page.getByRole('definition');
    assert.equal(await destination.textContent(), 'https://evil.example/landing');
    assert.deepEqual(left, [], 'the browser never went to the registered address');
    assert.equal(await page.title(), 'Sign-in request refused · Atelier');
    await screenshot(page, 'mcp-authorize-problem');
    await expectNoAxeViolations(page, 'the authorize problem page');
  });

  test('the authorization URL leads through sign-in to the consent screen, and Allow redirects with a code', async () => {
    const authorizationUrl = await startSignIn(site.server.baseUrl, client);
    await page.goto(authorizationUrl.href);
    // Signed out: the website's own sign-in first, then back to the consent screen.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await site.signIn();
    await page.getByRole('heading', { name: 'Allow Browser Agent to use Atelier?' }).waitFor();
    const request = page.getByRole('region', { name: 'Sign-in request' });
    const text = await request.textContent();
    assert.ok(text?.includes(site.server.email), text ?? '');
    assert.ok(text?.includes(new URL(catcher.url).host), text ?? '');
    await screenshot(page, 'mcp-consent');
    await expectNoAxeViolations(page, 'the consent screen');
    await page.getByRole('button', { name: 'Allow' }).click();
    const redirect = await catcher.answer;
    assert.equal(redirect.searchParams.get('state'), authorizationUrl.searchParams.get('state'));
    await finishSignIn(site.server.baseUrl, client, redirect.searchParams.get('code') ?? '');
    assert.ok(client.saved?.access_token);
  });

  test('the MCP SDK client, signed in, generates an image over Streamable HTTP', async () => {
    mcp = await connectSignedIn(site.server.baseUrl, client);
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a signed-in lighthouse', wait: 30 },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result.content[0]));
    assert.ok(result.content.some((block) => block.type === 'resource_link'));
  });

  test('revoking the app on the account page refuses its next call', async () => {
    await page.goto('/account');
    const table = page.getByRole('table', { name: 'Apps signed in with your account' });
    const row = table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Browser Agent' }) });
    await row.waitFor();
    await expectNoAxeViolations(page, 'the account page with a signed-in app');
    await row.getByRole('button', { name: 'Revoke Browser Agent' }).click();
    await page.getByRole('dialog').waitFor();
    await expectNoAxeViolations(page, 'the revoke confirmation');
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke access' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await postMcp(
      site.server.baseUrl,
      { authorization: `Bearer ${client.saved?.access_token}` },
      INITIALIZE,
    );
    assert.equal(refused.status, 401);
    // The SDK's client tries its refresh token, which was revoked with the grant: it cannot go on.
    await assert.rejects(mcp?.callTool({ name: 'get_account_status', arguments: {} }) ?? Promise.reject());
  });

  test('an app named by its client ID metadata document: the consent screen names it and the host publishing it', async () => {
    const answer = await redirectCatcher();
    try {
      const clientId = `${documents.origin}/apps/published.json`;
      documents.set('/apps/published.json', {
        body: { client_id: clientId, client_name: 'Published Agent', redirect_uris: [answer.url] },
      });
      const authorize = new URL(`${site.server.baseUrl}/authorize`);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: answer.url,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 'doc',
      }))
        authorize.searchParams.set(name, value);
      await page.goto(authorize.href);
      await page.getByRole('heading', { name: 'Allow Published Agent to use Atelier?' }).waitFor();
      const text = await page.getByRole('region', { name: 'Sign-in request' }).textContent();
      assert.ok(text?.includes(`described by ${documents.allowedHost}`), text ?? '');
      await expectNoAxeViolations(page, 'the consent screen of a document-named app');
      await page.getByRole('button', { name: 'Deny' }).click();
      const denied = await answer.answer;
      assert.equal(denied.searchParams.get('error'), 'access_denied');
      assert.equal(denied.searchParams.get('state'), 'doc');
    } finally {
      answer.server.close();
    }
  });

  testNoConsoleErrors(site);
});
