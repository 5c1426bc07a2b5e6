import { randomBytes } from 'node:crypto';
import type { Account } from '../../capabilities/accounts/index.js';
import { type AccountResolver, bearerKeyOf } from './authentication.js';
import { ApiError } from './errors.js';

const IN_APP_PREFIX = 'atl_inapp_';

/**
 * Credentials that live inside this process for the span of one request: the remote MCP endpoint,
 * having checked an OAuth access token (which is bound to /mcp and never accepted by /api/v1),
 * opens one for the account so its tools' in-app calls to /api/v1 act as that account, and closes
 * it when the MCP request ends. 256 random bits, never sent over the network, never stored; a
 * closed or unknown one is an invalid key.
 */
export function createInAppGrants() {
  const open = new Map<string, Account>();
  const resolver: AccountResolver = (request) => {
    const key = request.headers.authorization === undefined ? undefined : bearerKeyOf(request);
    if (key === undefined || !key.startsWith(IN_APP_PREFIX)) return 'not-mine';
    const account = open.get(key);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid API key');
    return account;
  };
  return {
    /** A credential acting as `account` until `release` is called. */
    open(account: Account): { apiKey: string; release: () => void } {
      const key = `${IN_APP_PREFIX}${randomBytes(32).toString('base64url')}`;
      open.set(key, account);
      return {
        apiKey: key,
        release: () => {
          open.delete(key);
        },
      };
    },
    /** Put first among the resolvers of /api/v1: answers only for the credentials it opened. */
    resolver,
  };
}

export type InAppGrants = ReturnType<typeof createInAppGrants>;
