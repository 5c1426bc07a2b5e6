/**
 * OAuth's own wire (issue 49): the authorization server for hosted MCP clients as the OpenAPI
 * document describes it. /register, /token and /revoke are the MCP SDK's handlers (RFC 7591, 6749,
 * 7009); /authorize is Atelier's (src/edges/oauth/authorize-endpoint.ts); the metadata documents are
 * RFC 8414's and RFC 9728's. Their errors are OAuth's `{ error, error_description }` — the documented
 * exception to Atelier's error shape — since OAuth clients read that shape and no other.
 */
import { z } from 'zod';

export const OAUTH_TAG = 'OAuth';
/** The one scope Atelier issues (OAUTH_SCOPE in capabilities/accounts). */
const SCOPE = 'mcp';

export const oauthErrorSchema = z
  .object({
    error: z
      .string()
      .describe(
        'OAuth error code (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1, RFC 8707): invalid_request, invalid_client, invalid_grant, unsupported_grant_type, invalid_scope, invalid_target, invalid_client_metadata, too_many_requests, server_error',
      ),
    error_description: z.string().optional().describe('A sentence for the developer'),
    error_uri: z.string().optional(),
  })
  .meta({
    id: 'OAuthError',
    description: "OAuth's error shape (RFC 6749 §5.2), not Atelier's {error:{type,message}}",
    examples: [{ error: 'invalid_grant', error_description: 'Unknown authorization code' }],
  });

/**
 * A redirect URI a client may register: https; http only on a loopback host (any port); or a
 * native app's private-use scheme (`cursor://…`); never a fragment, nor a scheme that runs in the
 * browser (src/edges/oauth/oauth-provider.ts, assertRedirectUris).
 */
export const redirectUriSchema = z
  .url()
  .regex(
    /^(?!(?:javascript|data|vbscript|file|blob|about):)(?!http:\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])(?:[:/?]|$)))[a-z][a-z0-9+.-]*:[^#]*$/,
  )
  // (the pattern would otherwise stand in for the format in the JSON Schema)
  .meta({ format: 'uri' })
  .describe(
    'https; http only on a loopback host (localhost, 127.0.0.1, [::1], any port); or a native app’s own scheme (cursor://…). No fragment; never javascript:, data:, vbscript:, file:, blob: or about:',
  );

export const oauthRegistrationSchema = z
  .looseObject({
    redirect_uris: z.array(redirectUriSchema).describe('Where authorization answers may go'),
    token_endpoint_auth_method: z
      .string()
      .optional()
      .describe('`none` for a public client (no secret); anything else is issued a client_secret'),
    grant_types: z.array(z.string()).optional(),
    response_types: z.array(z.string()).optional(),
    client_name: z.string().optional().describe('Shown on the consent screen'),
    client_uri: z.url().optional().describe('The app’s home page'),
    logo_uri: z.union([z.url(), z.literal('')]).optional(),
    scope: z.string().optional(),
    contacts: z.array(z.string()).optional(),
    tos_uri: z.union([z.url(), z.literal('')]).optional(),
    policy_uri: z.string().optional(),
    jwks_uri: z.url().optional(),
    software_id: z.string().optional(),
    software_version: z.string().optional(),
  })
  .meta({ id: 'OAuthClientRegistration', description: 'Client metadata (RFC 7591 §2)' });

export const oauthRegisteredClientSchema = z
  .looseObject({
    client_id: z.string(),
    client_secret: z
      .string()
      .optional()
      .describe('Absent for a public client (token_endpoint_auth_method none)'),
    client_id_issued_at: z.number().int().describe('Epoch seconds'),
    client_secret_expires_at: z.number().int().optional().describe('Epoch seconds'),
    redirect_uris: z.array(z.string()),
  })
  .meta({ id: 'OAuthRegisteredClient', description: 'The client as registered (RFC 7591 §3.2.1)' });

const clientAuth = {
  client_id: z.string().describe('The registered client'),
  client_secret: z.string().optional().describe('A confidential client’s secret (client_secret_post)'),
};
const resource = z
  .url()
  .optional()
  .describe(
    'RFC 8707: this server’s MCP URL (the `resource` of its protected-resource metadata); another is invalid_target',
  );

export const oauthTokenRequestSchema = z
  .discriminatedUnion('grant_type', [
    z.looseObject({
      grant_type: z.literal('authorization_code'),
      ...clientAuth,
      code: z.string().describe('From the redirect after consent'),
      code_verifier: z.string().describe('PKCE (RFC 7636): the verifier of the S256 code_challenge'),
      redirect_uri: z.string().optional().describe('As sent to /authorize'),
      resource,
    }),
    z.looseObject({
      grant_type: z.literal('refresh_token'),
      ...clientAuth,
      refresh_token: z.string(),
      scope: z.enum([SCOPE]).optional(),
      resource,
    }),
  ])
  .meta({ id: 'OAuthTokenRequest', description: 'A token request (RFC 6749 §4.1.3, §6), as a form' });

export const oauthTokensSchema = z
  .object({
    access_token: z.string().describe('Acts as the account on /mcp only'),
    token_type: z.string().describe('Bearer'),
    expires_in: z.number().int().describe('Seconds'),
    refresh_token: z.string().describe('Single use: each refresh answers a new one'),
    scope: z.string(),
  })
  .meta({ id: 'OAuthTokens', description: 'Tokens (RFC 6749 §5.1)' });

export const oauthRevocationRequestSchema = z
  .looseObject({
    ...clientAuth,
    token: z.string().describe('An access or refresh token of this client'),
    token_type_hint: z.string().optional(),
  })
  .meta({ id: 'OAuthRevocationRequest', description: 'A revocation request (RFC 7009 §2.1), as a form' });

/** Revoked, or nothing to revoke (RFC 7009 §2.2: an unknown token is no error). */
export const oauthRevokedSchema = z.object({}).describe('Revoked');

export const oauthAuthorizeQuerySchema = z.looseObject({
  response_type: z.enum(['code']).describe('Authorization codes only'),
  client_id: z.string().describe('A registered client, or the https URL of a client ID metadata document'),
  redirect_uri: z
    .string()
    .optional()
    .describe('One of the client’s; may be left out when it registered exactly one'),
  code_challenge: z.string().describe('PKCE (RFC 7636)'),
  code_challenge_method: z.enum(['S256']),
  state: z.string().optional(),
  scope: z.string().optional(),
  resource,
});

export const authorizationServerMetadataSchema = z
  .looseObject({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    revocation_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
  })
  .meta({ id: 'OAuthAuthorizationServerMetadata', description: 'RFC 8414 authorization-server metadata' });

export const protectedResourceMetadataSchema = z
  .looseObject({
    resource: z.string().describe('The MCP URL tokens are issued for'),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    resource_name: z.string().optional(),
  })
  .meta({ id: 'OAuthProtectedResourceMetadata', description: 'RFC 9728 protected-resource metadata' });
