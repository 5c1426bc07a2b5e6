// The Express app the OAuth routes are handed to (oauth-server.ts), loaded at the first of them:
// Express, express-rate-limit and the MCP SDK's router are not part of a start.
import type { IncomingMessage } from 'node:http';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import express from 'express';
import type { FastifyBaseLogger } from 'fastify';
import { OAUTH_SCOPE, type OAuthGrants } from '../../capabilities/accounts/index.js';
import { createOAuthProvider } from './oauth-provider.js';
import { PROTECTED_RESOURCE_ROOT } from './oauth-route-schemas.js';
import { OAUTH_LIMITS, sharedWindowStore } from './rate-limits.js';

/** What the Express app is built from (oauth-server.ts's options carry them). */
export interface ExpressAppOptions {
  publicBaseUrl: string;
  mcpUrl: string;
  documentationUrl: string;
}

/**
 * The Express app the OAuth routes are handed to: Atelier's authorization-server metadata, the
 * SDK's router with limits counted in the store, RFC 9728's root metadata, and OAuth's shape for
 * every answer it would otherwise give as Express's own.
 */
export function expressApp(
  log: FastifyBaseLogger,
  options: ExpressAppOptions,
  grants: OAuthGrants,
  consentUrl: (id: string) => string,
  addresses: WeakMap<IncomingMessage, string>,
): express.Express {
  const { mcpUrl } = options;
  const rateLimit = (endpoint: keyof typeof OAUTH_LIMITS) => ({
    ...OAUTH_LIMITS[endpoint],
    keyGenerator: (request: IncomingMessage) => addresses.get(request) ?? 'unknown',
    store: sharedWindowStore(grants.rateWindows, endpoint),
    validate: false,
  });
  const common = {
    provider: createOAuthProvider(grants, consentUrl),
    issuerUrl: new URL(options.publicBaseUrl),
    resourceServerUrl: new URL(mcpUrl),
    resourceName: 'Atelier',
    serviceDocumentationUrl: new URL(options.documentationUrl),
    scopesSupported: [OAUTH_SCOPE],
  };
  const handler = express();
  handler.disable('x-powered-by');
  handler.set('trust proxy', false);
  // Authorization-server metadata (RFC 8414) with what Atelier adds to the SDK's: public clients
  // revoke with `none`, authorization responses carry `iss` (RFC 9207), and a client may be named
  // by the https URL of its client ID metadata document. Served before the
  // SDK's router, which would answer its own.
  const oauthMetadata = {
    ...createOAuthMetadata(common),
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
  handler.use('/.well-known/oauth-authorization-server', metadataHandler(oauthMetadata));
  handler.use(
    mcpAuthRouter({
      ...common,
      tokenOptions: { rateLimit: rateLimit('token') },
      clientRegistrationOptions: { rateLimit: rateLimit('register') },
      revocationOptions: { rateLimit: rateLimit('revoke') },
    }),
  );
  // RFC 9728's root location too (the MCP spec's clients try it when the path-specific one is missing).
  handler.use(
    PROTECTED_RESOURCE_ROOT,
    metadataHandler({
      resource: mcpUrl,
      authorization_servers: [oauthMetadata.issuer],
      scopes_supported: [OAUTH_SCOPE],
      resource_name: 'Atelier',
      resource_documentation: options.documentationUrl,
    }),
  );
  // Every path handed over is the router's; should one slip past it, OAuth's shape still.
  handler.use(notFound);
  handler.use(expressErrors(log));
  return handler;
}

/** A path no OAuth handler took: 404 in OAuth's shape. */
function notFound(request: express.Request, response: express.Response) {
  response
    .status(404)
    .json({ error: 'invalid_request', error_description: `No ${request.method} ${request.path}` });
}

/**
 * What Express itself refuses (a body that is not JSON or a form, too large, in an unknown
 * charset) is answered in OAuth's shape too, never as Express's HTML page.
 */
function expressErrors(log: FastifyBaseLogger) {
  return (
    error: unknown,
    _request: express.Request,
    response: express.Response,
    _next: express.NextFunction,
  ) => {
    const status = (error as { status?: unknown }).status;
    const clientError = typeof status === 'number' && status >= 400 && status < 500;
    if (!clientError) log.error({ err: error }, 'oauth: request failed');
    response.status(clientError ? status : 500).json({
      error: clientError ? 'invalid_request' : 'server_error',
      error_description: clientError ? (error as Error).message : 'Internal Server Error',
    });
  };
}
