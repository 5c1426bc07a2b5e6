import type { FastifyRequest } from 'fastify';
import { OAUTH_ACCESS_PREFIX, type OAuthGrants } from '../../capabilities/accounts/index.js';
import { type AccountResolver, bearerKeyOf } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import type { InAppGrants } from '../http/in-app-grants.js';

const MISSING =
  'Missing Authorization header; send "Authorization: Bearer <API_KEY>" or sign in with OAuth (docs/mcp.md)';

/**
 * Who a /mcp request acts as: an API key (as on /api/v1), or an OAuth access token issued for
 * /mcp (RFC 8707: bound to this resource; refused anywhere else). A token is checked against the
 * store on every request (revoked, expired, its account disabled: 401 at once, on every node);
 * it then opens an in-process credential for the tools' in-app calls, so the token itself never
 * reaches /api/v1 (no token passthrough).
 */
export function mcpAuthenticator(deps: {
  grants: OAuthGrants | undefined;
  apiKey: AccountResolver;
  inApp: InAppGrants;
}) {
  return async (
    request: FastifyRequest,
  ): Promise<{ apiKey: string; accountId: string; kind: 'api_key' | 'sign_in'; release?: () => void }> => {
    const bearer = request.headers.authorization === undefined ? undefined : bearerKeyOf(request);
    if (bearer?.startsWith(OAUTH_ACCESS_PREFIX) && deps.grants) {
      const access = await deps.grants.verifyAccess(bearer);
      if (!access) throw new ApiError('unauthorized', 'Invalid, expired or revoked access token');
      return { ...deps.inApp.open(access.account), accountId: access.account.id, kind: 'sign_in' };
    }
    const account = await deps.apiKey(request);
    if (!account || account === 'not-mine' || bearer === undefined)
      throw new ApiError('unauthorized', MISSING);
    return { apiKey: bearer, accountId: account.id, kind: 'api_key' };
  };
}
