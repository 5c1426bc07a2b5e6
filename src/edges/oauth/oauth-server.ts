import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, HTTPMethods, onRequestHookHandler } from 'fastify';
import type { OAuthGrants } from '../../capabilities/accounts/index.js';
import { type AuthorizeClient, authorizeEndpoint, type ProblemPage } from './authorize-endpoint.js';
import { type ClientMetadataDocuments, isUrlClientId } from './client-metadata-documents.js';
import {
  authorizationServerMetadata,
  PROTECTED_RESOURCE_ROOT,
  protectedResourceMetadata,
  registerSchema,
  revokeSchema,
  tokenSchema,
} from './oauth-route-schemas.js';
import { authorizeAdmission } from './rate-limits.js';

/** Where the website's consent page is (web/src/features/account/consent-page.tsx). */
export const CONSENT_PAGE = '/oauth/consent';

/**
 * The protected-resource metadata URL of a resource (RFC 9728 §3.1: the path-specific well-known),
 * as the SDK's `getOAuthProtectedResourceMetadataUrl` gives it (its module brings Express, which a
 * start does not load; oauth-server.test.ts checks the two agree).
 */
export function resourceMetadataUrlOf(mcpUrl: string): string {
  const url = new URL(mcpUrl);
  const path = url.pathname && url.pathname !== '/' ? url.pathname : '';
  return new URL(`${PROTECTED_RESOURCE_ROOT}${path}`, url).href;
}

/**
 * The OAuth routes handed to the SDK's router (RFC 6749, 7591, 7009, 8414, 9728), each with the
 * method it answers and its description in the OpenAPI document; each also answers its CORS
 * preflight (OPTIONS). /authorize is Atelier's own (authorize-endpoint.ts).
 */
export function oauthRoutesOf(mcpUrl: string): Array<{ url: string; method: HTTPMethods; schema: object }> {
  return [
    { url: '/token', method: 'POST', schema: tokenSchema },
    { url: '/register', method: 'POST', schema: registerSchema },
    { url: '/revoke', method: 'POST', schema: revokeSchema },
    { url: '/.well-known/oauth-authorization-server', method: 'GET', schema: authorizationServerMetadata },
    {
      url: new URL(resourceMetadataUrlOf(mcpUrl)).pathname,
      method: 'GET',
      schema: protectedResourceMetadata,
    },
    { url: PROTECTED_RESOURCE_ROOT, method: 'GET', schema: protectedResourceMetadata },
  ];
}

/**
 * Whether the public base URL can be an OAuth issuer: RFC 8414 (and the SDK) want https; a loopback
 * address is allowed for development and tests. It must be a host's root: the SDK puts the
 * endpoints and the metadata at root paths (`/authorize`, `/.well-known/…`).
 */
export function canIssue(publicBaseUrl: string): boolean {
  const url = new URL(publicBaseUrl);
  const secure = url.protocol === 'https:' || ['localhost', '127.0.0.1'].includes(url.hostname);
  return secure && url.pathname === '/';
}

/**
 * The grants, each failing call logged: the SDK's handlers turn a store failure into OAuth's
 * `server_error` without a word, so this is where it is written down (with the request's logger).
 */
function loggedGrants(grants: OAuthGrants, log: FastifyBaseLogger): OAuthGrants {
  const wrapped = Object.entries(grants).map(([name, value]) => {
    if (typeof value !== 'function') return [name, value];
    return [
      name,
      (...args: unknown[]) => {
        const result: unknown = (value as (...all: unknown[]) => unknown)(...args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          log.error({ err: error }, `oauth: ${name} failed`);
          throw error;
        });
      },
    ];
  });
  return Object.fromEntries(wrapped) as OAuthGrants;
}

/** What the authorization server is built from. */
export interface OAuthServerOptions {
  grants: OAuthGrants;
  publicBaseUrl: string;
  mcpUrl: string;
  documentationUrl: string;
  /** The website's page stating an authorization request's problem. */
  problemPage: ProblemPage;
  /** Clients whose client_id is the https URL of their metadata document. */
  clientDocuments: ClientMetadataDocuments;
}

/**
 * The authorization server for MCP sign-in: the MCP SDK's `mcpAuthRouter` (authorization with PKCE
 * S256, dynamic client registration, tokens with refresh, revocation, RFC 8414 and RFC 9728
 * metadata), an Express router, run inside this Fastify app. Fastify routes name its paths (so they
 * are known, listed and logged like every other); each request is handed whole to Express before
 * Fastify reads its body, and Express answers it. Answers and errors are OAuth's own
 * (`{ error, error_description }`, RFC 6749 §5.2), as OAuth clients expect. The Express app (with
 * Express and the SDK's router) is loaded and built at the first request handed to it, not at start.
 */
export async function oauthServer(app: FastifyInstance, options: OAuthServerOptions): Promise<void> {
  const grants = loggedGrants(options.grants, app.log);
  const consentUrl = (id: string) => `${options.publicBaseUrl}${CONSENT_PAGE}?request=${id}`;
  await app.register(authorizeEndpoint, {
    grants,
    consentUrl,
    problemPage: options.problemPage,
    admit: authorizeAdmission(grants.rateWindows),
    clientOf: (clientId) => authorizeClientOf(grants, options.clientDocuments, clientId),
  });
  // Each endpoint's limit per client address is counted in the store (every node shares it). The
  // address is the one Fastify decided under ATELIER_TRUST_PROXY, never a header Express would trust.
  const addresses = new WeakMap<IncomingMessage, string>();
  let handler: Promise<(request: IncomingMessage, response: ServerResponse) => void> | undefined;
  const expressHandler = () => {
    handler ??= import('./oauth-express-app.js').then(({ expressApp }) =>
      expressApp(app.log, options, grants, consentUrl, addresses),
    );
    return handler;
  };
  // Before Fastify parses anything: Express reads the body (form or JSON) itself. The hook never
  // calls on: the reply is hijacked and Express writes it. (Express swaps the request's and
  // response's prototypes for its own, so these routes answer real connections, not Fastify's
  // inject.)
  const handOver: onRequestHookHandler = async (request, reply) => {
    reply.hijack();
    addresses.set(request.raw, request.ip);
    reply.raw.setHeader('x-request-id', request.id);
    try {
      (await expressHandler())(request.raw, reply.raw);
    } catch (error) {
      // Express could not be loaded or built: OAuth's shape still, never a hung request.
      handler = undefined;
      request.log.error({ err: error }, 'oauth: the authorization server could not be built');
      reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify({ error: 'server_error', error_description: 'Internal Server Error' }));
    }
  };
  // The document describes each (oauth-route-schemas.ts); Fastify validates nothing of them, since
  // the reply is hijacked before it reads the request.
  for (const route of oauthRoutesOf(options.mcpUrl)) {
    app.route({ ...route, onRequest: handOver, handler: async () => undefined });
    // The CORS preflight (the SDK's cors middleware answers it): no operation of its own.
    app.route({
      method: 'OPTIONS',
      url: route.url,
      schema: { hide: true },
      onRequest: handOver,
      handler: async () => undefined,
    });
  }
}

/** The client an authorization request names: a metadata document's (read or cached), or a registered one. */
async function authorizeClientOf(
  grants: OAuthGrants,
  clientDocuments: ClientMetadataDocuments,
  clientId: string,
): Promise<AuthorizeClient | string> {
  if (isUrlClientId(clientId)) {
    // Read (or taken from the cache) at every authorization; kept as a row for the grants.
    const client = await clientDocuments.clientOf(clientId);
    if (typeof client === 'string') return client;
    await grants.saveDocumentClient({ ...client });
    return { ...client, exactRedirects: true };
  }
  return (
    ((await grants.getClient(clientId)) as AuthorizeClient | undefined) ??
    'This app is not registered with this Atelier: its client_id is unknown (it may have been removed after going unused).'
  );
}
