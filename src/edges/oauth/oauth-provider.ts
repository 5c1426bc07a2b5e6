import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  type OAuthTokens as IssuedTokens,
  OAUTH_SCOPE,
  type OAuthGrants,
  type OAuthRefusal,
} from '../../capabilities/accounts/index.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes a redirect may never use: they run or read in the browser instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * Redirect URIs a client may register (MCP authorization spec, OAuth 2.1 §2.3.1): https, http on
 * a loopback address (native and CLI clients, any port), or a private-use scheme of a native app
 * (`cursor://…`); never plain http elsewhere (the code would cross the network in clear) nor a
 * scheme that runs in the browser.
 */
function assertRedirectUris(uris: readonly string[]): void {
  for (const uri of uris) {
    if (!URL.canParse(uri)) throw new InvalidClientMetadataError(`redirect_uri ${uri} is not a URL`);
    const url = new URL(uri);
    if (url.hash) throw new InvalidClientMetadataError(`redirect_uri ${uri} must not have a fragment`);
    if (FORBIDDEN_SCHEMES.has(url.protocol)) {
      throw new InvalidClientMetadataError(`redirect_uri ${uri} uses a scheme that cannot receive a code`);
    }
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      throw new InvalidClientMetadataError(
        `redirect_uri ${uri} must be https, or http on a loopback address`,
      );
    }
  }
}

function tokensOr(result: IssuedTokens | OAuthRefusal): OAuthTokens {
  if ('refused' in result) {
    throw result.refused === 'invalid_target'
      ? new InvalidTargetError(result.message)
      : new InvalidGrantError(result.message);
  }
  return result;
}

/**
 * The MCP SDK's OAuth server provider over the account's grants: the SDK's handlers check the
 * protocol (parameters, redirect URI against the client's, PKCE S256 verification, client
 * authentication) and call these for what is Atelier's — where consent happens and what is stored.
 */
export function createOAuthProvider(grants: OAuthGrants, consentUrl: (authorizationId: string) => string) {
  const clientsStore: OAuthRegisteredClientsStore = {
    async getClient(clientId) {
      return (await grants.getClient(clientId)) as OAuthClientInformationFull | undefined;
    },
    async registerClient(client) {
      assertRedirectUris(client.redirect_uris);
      const registered = client as OAuthClientInformationFull;
      await grants.registerClient(registered);
      return registered;
    },
  };

  const provider: OAuthServerProvider = {
    clientsStore,

    // Every authorization goes through the website's consent page (signing in first if needed).
    async authorize(client, params, res) {
      const started = await grants.startAuthorization({
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        state: params.state,
        resource: params.resource?.href,
      });
      if (typeof started !== 'string') throw new InvalidTargetError(started.message);
      res.redirect(302, consentUrl(started));
    },

    async challengeForAuthorizationCode(client, code) {
      const challenge = await grants.challengeFor(client.client_id, code);
      if (challenge === undefined) throw new InvalidGrantError('Unknown authorization code');
      return challenge;
    },

    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      return tokensOr(
        await grants.exchangeCode({
          clientId: client.client_id,
          code,
          redirectUri,
          resource: resource?.href,
        }),
      );
    },

    async exchangeRefreshToken(client, refreshToken, scopes, resource) {
      if (scopes?.some((scope) => scope !== OAUTH_SCOPE)) {
        throw new InvalidScopeError(`The only scope is ${OAUTH_SCOPE}`);
      }
      return tokensOr(
        await grants.refresh({ clientId: client.client_id, refreshToken, resource: resource?.href }),
      );
    },

    async verifyAccessToken(token) {
      const access = await grants.verifyAccess(token);
      if (!access) throw new InvalidTokenError('Invalid, expired or revoked access token');
      return {
        token,
        clientId: access.clientId,
        scopes: access.scopes,
        expiresAt: access.expiresAt,
        resource: new URL(access.resource),
        extra: { accountId: access.account.id },
      };
    },

    async revokeToken(client, request) {
      await grants.revokeToken(client.client_id, request.token);
    },
  };
  return provider;
}
