import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/accounts-repository.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account; set by the authentication hook of protected scopes. */
    account?: Account;
  }
}

/** A way to find the caller's account (bearer key; the website adds its session). */
export type AccountResolver = (request: FastifyRequest) => Promise<Account | undefined | 'not-mine'>;

const bearerPattern = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/** How many `Authorization` header lines the request carried (Node keeps only the first). */
function authorizationHeaderCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'authorization') count++;
  return count;
}

/** Reads `Authorization: Bearer <key>` (spec §5): missing/not Bearer → unauthorized; unknown → invalid_api_key. */
export function bearerKeyResolver(
  authenticate: (apiKey: string) => Promise<Account | undefined>,
): AccountResolver {
  return async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return 'not-mine';
    // Security: with two, a proxy reading the last and Atelier the first would disagree on the caller.
    if (authorizationHeaderCount(request) > 1) {
      throw new ApiError('unauthorized', 'Send exactly one Authorization header');
    }
    const match = bearerPattern.exec(header);
    if (!match?.[1]) {
      throw new ApiError('unauthorized', 'Authorization header must be "Bearer <API_KEY>"');
    }
    const account = await authenticate(match[1]);
    if (!account) throw new ApiError('invalid_api_key', 'Invalid API key');
    return account;
  };
}

/** An onRequest hook: tries each resolver in turn; none answering → 401 unauthorized. */
export function requireAccount(resolvers: AccountResolver[]) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    for (const resolve of resolvers) {
      const result = await resolve(request);
      if (result && result !== 'not-mine') {
        request.account = result;
        return;
      }
    }
    throw new ApiError(
      'unauthorized',
      'Missing Authorization header; send "Authorization: Bearer <API_KEY>"',
    );
  };
}

/** The account of an authenticated request (routes behind `requireAccount`). */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new ApiError('unauthorized', 'Not authenticated');
  return request.account;
}
