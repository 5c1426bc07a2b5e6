// An MCP client's side of OAuth sign-in, for tests: the MCP SDK's own client auth (`auth()` with an
// OAuthClientProvider kept in memory), and a few requests by hand for what the SDK would never send.
import { createHash, randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** An OAuth client provider in memory: what a hosted client keeps, and the URL it would open. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The authorization URL the SDK asked to open (a browser would go there). */
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientName = 'Test Agent',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Starts sign-in as a client would: discovery from /mcp's 401, registration, the authorization URL. */
export async function startSignIn(baseUrl: string, client: MemoryOAuthClient): Promise<URL> {
  const result = await auth(client, { serverUrl: `${baseUrl}/mcp` });
  if (result !== 'REDIRECT' || !client.authorizationUrl)
    throw new Error(`expected a redirect, got ${result}`);
  return client.authorizationUrl;
}

/** Finishes sign-in with the code the redirect carried: the SDK exchanges it (with its verifier). */
export async function finishSignIn(baseUrl: string, client: MemoryOAuthClient, code: string): Promise<void> {
  const result = await auth(client, { serverUrl: `${baseUrl}/mcp`, authorizationCode: code });
  if (result !== 'AUTHORIZED') throw new Error(`expected AUTHORIZED, got ${result}`);
}

/** The MCP SDK client over Streamable HTTP, signed in through `client`. */
export async function connectSignedIn(baseUrl: string, client: MemoryOAuthClient): Promise<Client> {
  const mcp = new Client({ name: 'atelier-oauth-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: client }));
  return mcp;
}

/** A PKCE pair (RFC 7636, S256), for requests by hand. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A form POST (token, revocation) answering status and JSON. */
export async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * A signed-in person's side of /authorize: follows its redirect to the consent screen, reads the
 * question and answers it; the question, and where the website sends the browser next.
 */
export async function answerConsent(
  baseUrl: string,
  cookie: string,
  authorizationUrl: URL,
  allow: boolean,
): Promise<{ question: Record<string, unknown>; redirect: URL }> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  if (authorize.status !== 302) throw new Error(`expected 302 from /authorize, got ${authorize.status}`);
  const consentPage = new URL(authorize.headers.get('location') ?? '');
  if (consentPage.pathname !== '/oauth/consent') throw new Error(`not the consent page: ${consentPage.href}`);
  const id = consentPage.searchParams.get('request') ?? '';
  const headers = { cookie, origin: baseUrl, 'content-type': 'application/json' };
  const asked = await fetch(`${baseUrl}/web/api/oauth/authorizations/${id}`, { headers });
  if (asked.status !== 200) throw new Error(`the consent question answered ${asked.status}`);
  const question = (await asked.json()) as Record<string, unknown>;
  const answer = await fetch(`${baseUrl}/web/api/oauth/authorizations/${id}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ allow }),
  });
  if (answer.status !== 200) throw new Error(`the consent answer got ${answer.status}`);
  return { question, redirect: new URL(((await answer.json()) as { redirect_to: string }).redirect_to) };
}

/** The problem /authorize's page states (the meta element the website shows), if any. */
export function problemOf(html: string): { problem: string; destination: string | null } | undefined {
  const content = html.match(/<meta name="atelier-authorize-problem" content="([^"]*)">/)?.[1];
  if (content === undefined) return undefined;
  const text = content
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return JSON.parse(text) as { problem: string; destination: string | null };
}
