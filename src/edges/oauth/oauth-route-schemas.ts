import { z } from 'zod';
import { errorBodySchema } from '../../base/contract/errors.js';
import {
  authorizationServerMetadataSchema,
  OAUTH_TAG,
  oauthAuthorizeQuerySchema,
  oauthErrorSchema,
  oauthRegisteredClientSchema,
  oauthRegistrationSchema,
  oauthRevocationRequestSchema,
  oauthRevokedSchema,
  oauthTokenRequestSchema,
  oauthTokensSchema,
  protectedResourceMetadataSchema,
} from '../../base/contract/oauth-wire.js';
import { MAX_HEADER_BYTES } from '../http/client-errors.js';
import { noContent } from '../http/route-responses.js';

/** RFC 9728's root location of the protected-resource metadata. */
export const PROTECTED_RESOURCE_ROOT = '/.well-known/oauth-protected-resource';

// The OpenAPI description of OAuth's routes (issue 49). Every status each can answer is declared
// here, in the shape it is answered in: OAuth's `{ error, error_description }` for what the OAuth
// handlers answer, Atelier's `{ error: { type, message } }` for what Node and the HTTP kit answer
// before any handler (431, 503, and 408 when Node's request deadline passes). The framework's
// refusals (http/framework-refusals.ts) are not added to them: the OAuth handlers read their own
// input and answer their own refusals.

const FORM = 'application/x-www-form-urlencoded';
const oauth = (description: string) => ({
  description,
  content: { 'application/json': { schema: oauthErrorSchema } },
});
const atelier = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});
const json = (description: string, schema: z.ZodType) => ({
  description,
  content: { 'application/json': { schema } },
});

/** What Node and the HTTP kit answer on every route, before OAuth's handlers see the request. */
const beforeAnyHandler = {
  431: atelier(`The request line and headers exceed ${MAX_HEADER_BYTES / 1024} kB (headers_too_large)`),
  503: atelier('The server is shutting down; retry (service_unavailable)'),
};

/** What the MCP SDK's handlers (and Express's body parsers under them) answer besides success. */
function sdkRefusals(limit: string) {
  return {
    400: oauth(
      'OAuth refusal: invalid_request (a parameter missing or malformed), invalid_client, invalid_grant, unsupported_grant_type, invalid_scope, invalid_target, invalid_client_metadata',
    ),
    408: atelier('The request was not received in time (request_timeout)'),
    413: oauth('The body is over 100 kB (invalid_request)'),
    415: oauth('The body is in a charset or content encoding the parser does not read (invalid_request)'),
    429: oauth(`Over the limit per client address: ${limit} (too_many_requests; Retry-After)`),
    500: oauth('The store failed (server_error)'),
    ...beforeAnyHandler,
  };
}

const common = { tags: [OAUTH_TAG], security: [] };

export const registerSchema = {
  ...common,
  summary: 'Register a client (RFC 7591 dynamic client registration)',
  description:
    'Open to anyone, as MCP clients expect. A client that completes no sign-in within a day is removed. Answers and errors in OAuth’s shape.',
  documentedOnlyBodies: { 'application/json': { schema: oauthRegistrationSchema } },
  response: {
    201: json('Registered', oauthRegisteredClientSchema),
    ...sdkRefusals('20 an hour'),
  },
};

export const tokenSchema = {
  ...common,
  summary: 'Exchange an authorization code, or refresh (RFC 6749 §4.1.3, §6)',
  description:
    'A form (client_secret_post, or none for a public client). PKCE S256 is verified; a refresh token is single use, and presenting a replaced one ends its sign-in. Cache-Control: no-store.',
  documentedOnlyBodies: { [FORM]: { schema: oauthTokenRequestSchema } },
  response: { 200: json('Tokens', oauthTokensSchema), ...sdkRefusals('50 per 15 minutes') },
};

export const revokeSchema = {
  ...common,
  summary: 'Revoke a token (RFC 7009)',
  description: 'A form; revoking an access or refresh token ends the sign-in it belongs to.',
  documentedOnlyBodies: { [FORM]: { schema: oauthRevocationRequestSchema } },
  response: {
    200: json('Revoked, or nothing to revoke (an unknown token is no error)', oauthRevokedSchema),
    ...sdkRefusals('50 per 15 minutes'),
  },
};

/** A metadata document: what it is, its schema. */
export function metadataSchema(summary: string, schema: z.ZodType) {
  return {
    ...common,
    summary,
    response: {
      200: json(summary, schema),
      500: oauth('The server failed (server_error)'),
      ...beforeAnyHandler,
    },
  };
}
export const authorizationServerMetadata = metadataSchema(
  'Authorization-server metadata (RFC 8414)',
  authorizationServerMetadataSchema,
);
export const protectedResourceMetadata = metadataSchema(
  'Protected-resource metadata of /mcp (RFC 9728)',
  protectedResourceMetadataSchema,
);

const authorizeAnswers = {
  302: noContent(
    'To the consent page (signing in first if needed); or, for a refused request whose redirect URI a person already saw on the consent screen, to that URI with error, error_description, state and iss',
  ),
  400: {
    description:
      'The website’s page naming the problem (and the address it did not send the browser to): an unknown client, a redirect URI the client did not register, or a refused request before any consent',
    content: { 'text/html': { schema: z.string() } },
  },
  429: oauth('Over 100 sign-in requests per 15 minutes from this address (too_many_requests; Retry-After)'),
  500: atelier('The store failed (internal_error)'),
  ...beforeAnyHandler,
};
const authorizeDescription =
  'Starts sign-in (OAuth 2.1 §4.1.1, PKCE S256 required). Never an API error: a browser is sent to the consent page, or shown a page naming the problem. Cache-Control: no-store.';

export const authorizeGetSchema = {
  ...common,
  summary: 'Start sign-in (a browser is sent here)',
  description: authorizeDescription,
  querystring: oauthAuthorizeQuerySchema,
  response: authorizeAnswers,
};

export const authorizePostSchema = {
  ...common,
  summary: 'Start sign-in, parameters as a form',
  description: authorizeDescription,
  documentedOnlyBodies: { [FORM]: { schema: oauthAuthorizeQuerySchema } },
  response: {
    ...authorizeAnswers,
    408: atelier('The request was not received in time (request_timeout)'),
  },
};
