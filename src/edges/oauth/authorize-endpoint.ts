import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthGrants } from '../../capabilities/accounts/index.js';
import { authorizeGetSchema, authorizePostSchema } from './oauth-route-schemas.js';

/** What the problem page shows: the problem, and where Atelier did not send the browser. */
export interface AuthorizeProblem {
  problem: string;
  /** The redirect URI the request named (or the client's only one), shown as text; null if none. */
  destination: string | null;
}

/** Answers a browser with the website's page stating an authorization request's problem (status 400). */
export type ProblemPage = (reply: FastifyReply, problem: AuthorizeProblem) => Promise<unknown>;

/**
 * A client as /authorize needs it: its redirect URIs, matched exactly when `exactRedirects` (a
 * metadata document's), else as the MCP SDK matches a registration's (any port on loopback).
 */
export type AuthorizeClient = { client_id: string; redirect_uris: string[]; exactRedirects?: boolean };

type Params = Record<string, unknown>;
/** A refusal after the redirect URI is known: OAuth's code and a sentence. */
type Refusal = { error: string; description: string };

const text = (params: Params, name: string): string | undefined => {
  const value = params[name];
  return typeof value === 'string' ? value : undefined;
};

/** The request's own parameters (RFC 6749 §4.1.1, RFC 7636, RFC 8707), each refusal a sentence. */
function refusalOf(params: Params, resource: string): Refusal | undefined {
  const responseType = text(params, 'response_type');
  if (responseType !== 'code') {
    return {
      error: 'unsupported_response_type',
      description:
        responseType === undefined
          ? 'The request has no response_type; Atelier issues authorization codes only (response_type=code).'
          : `Atelier issues authorization codes only (response_type=code), not "${responseType.slice(0, 40)}".`,
    };
  }
  if (!text(params, 'code_challenge')) {
    return {
      error: 'invalid_request',
      description:
        'The request has no code_challenge; Atelier requires PKCE (RFC 7636) with the S256 method.',
    };
  }
  if (text(params, 'code_challenge_method') !== 'S256') {
    return {
      error: 'invalid_request',
      description: 'The code_challenge_method must be S256 (the plain method is not accepted).',
    };
  }
  const wanted = text(params, 'resource');
  if (wanted !== undefined && wanted !== resource) {
    return { error: 'invalid_target', description: `This Atelier issues tokens for ${resource} only.` };
  }
  return undefined;
}

/**
 * GET and POST /authorize (OAuth 2.1 §4.1.1), in place of the MCP SDK's handler, which redirects a
 * parameter error to any registered redirect URI — with no session and no consent, a redirector on
 * Atelier's origin (RFC 9700 §4.11.2). Here a redirect goes only to a URI a person has already seen
 * on the consent screen for that client; every earlier problem is the website's page naming it and
 * the destination it did not go to. A good request goes to the consent screen. Every redirect to
 * the client carries `iss` (RFC 9207).
 */
export async function authorizeEndpoint(
  app: FastifyInstance,
  options: {
    grants: OAuthGrants;
    /** The client of an id: a registered one, or one read from its metadata document. */
    clientOf: (clientId: string) => Promise<AuthorizeClient | string>;
    consentUrl: (authorizationId: string) => string;
    problemPage: ProblemPage;
    /** Counts the request against the endpoint's limit; false when over it. */
    admit: (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;
  },
): Promise<void> {
  const { grants } = options;
  // A browser posts a form; a body of any other type is read as no parameters, so the answer is
  // still the problem page a person can read (naming what is missing), not an API error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, _body, done) =>
    done(null, undefined),
  );
  // A request the framework refuses before the handler (a malformed Content-Type, a body too large)
  // is a page too; anything else goes on to the app's error handler.
  app.setErrorHandler(async (error: { statusCode?: number }, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 400 || status >= 500) throw error;
    return options.problemPage(reply, {
      problem: 'The sign-in request could not be read: send its parameters in the address or as a form.',
      destination: null,
    });
  });

  async function authorize(request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-store');
    if (!(await options.admit(request, reply))) return reply;
    const params = ((request.method === 'POST' ? request.body : request.query) ?? {}) as Params;
    const named = text(params, 'redirect_uri');
    const page = (problem: string, destination = named ?? null) =>
      options.problemPage(reply, { problem, destination });

    const clientId = text(params, 'client_id');
    if (!clientId)
      return page('The sign-in request does not say which app is asking (client_id is missing).');
    const client = await options.clientOf(clientId);
    if (typeof client === 'string') return page(client);
    let redirectUri: string;
    if (named !== undefined) {
      // The SDK's matching (RFC 8252's loopback ports), loaded at the first authorization: its module
      // brings Express, which a start does not need.
      const { redirectUriMatches } = await import(
        '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js'
      );
      const matches = (registered: string) =>
        client.exactRedirects ? named === registered : redirectUriMatches(named, registered);
      if (!client.redirect_uris.some(matches)) {
        return page('The address this request asks to send the answer to is not one the app registered.');
      }
      redirectUri = named;
    } else if (client.redirect_uris.length === 1 && client.redirect_uris[0]) {
      redirectUri = client.redirect_uris[0];
    } else {
      return page(
        'The request does not say which of the app’s registered addresses the answer goes to.',
        null,
      );
    }

    const refusal = refusalOf(params, grants.resource);
    if (refusal) {
      if (!(await grants.hasSeenRedirect(client.client_id, redirectUri)))
        return page(refusal.description, redirectUri);
      const target = new URL(redirectUri);
      target.searchParams.set('error', refusal.error);
      target.searchParams.set('error_description', refusal.description);
      const state = text(params, 'state');
      if (state !== undefined) target.searchParams.set('state', state);
      target.searchParams.set('iss', grants.issuer);
      return reply.redirect(target.href, 302);
    }
    const started = await grants.startAuthorization({
      clientId: client.client_id,
      redirectUri,
      codeChallenge: text(params, 'code_challenge') ?? '',
      state: text(params, 'state'),
      resource: text(params, 'resource'),
    });
    if (typeof started !== 'string') return page(started.message, redirectUri);
    return reply.redirect(options.consentUrl(started), 302);
  }

  // Described in the OpenAPI document (oauth-route-schemas.ts), validated here by nothing but the
  // handler: a problem is the page a person can read, never an API error.
  const readsItsOwn = () => (value: unknown) => ({ value });
  app.get('/authorize', { schema: authorizeGetSchema, validatorCompiler: readsItsOwn }, authorize);
  app.post('/authorize', { schema: authorizePostSchema, validatorCompiler: readsItsOwn }, authorize);
}
