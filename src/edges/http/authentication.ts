import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Account } from '../../capabilities/accounts/index.js';
import { ApiError } from './errors.js';
import { headerLineCount } from './header-lines.js';
import { scopeRefusal } from './key-scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account; set by the authentication hook of protected scopes. */
    account?: Account;
  }
}

type Resolved = Account | undefined | 'not-mine';

/**
 * A way to find the caller's account (bearer key; the website adds its session). It may answer at
 * once (a key kept in memory) or in a promise (a read from the store).
 */
export type AccountResolver = (request: FastifyRequest) => Resolved | Promise<Resolved>;

/**
 * The answer to a disabled account's API key (401 invalid_api_key) and its sessions' sign-in (403).
 * An unknown, revoked or expired key is "Invalid API key" (spec §5).
 */
export const ACCOUNT_DISABLED = 'This account is disabled';

const bearerPattern = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/** The key of `Authorization: Bearer <key>`; undefined without the header. */
export function bearerKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  // Security: with two, a proxy reading the last and Atelier the first would disagree on the caller.
  if (headerLineCount(request, 'authorization') > 1) {
    throw new ApiError('unauthorized', 'Send exactly one Authorization header');
  }
  const match = bearerPattern.exec(header);
  if (!match?.[1]) {
    throw new ApiError('unauthorized', 'Authorization header must be "Bearer <API_KEY>"');
  }
  return match[1];
}

const apiKeyPattern = /^ *([A-Za-z0-9._~+/=-]+) *$/;

/**
 * The key of a header that carries the key alone (Azure OpenAI's `api-key`, Google's
 * `x-goog-api-key`); undefined without the header.
 */
function keyHeaderOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers[name];
  if (header === undefined) return undefined;
  if (headerLineCount(request, name) > 1 || typeof header !== 'string') {
    throw new ApiError('unauthorized', `Send exactly one ${name} header`);
  }
  const match = apiKeyPattern.exec(header);
  if (!match?.[1]) throw new ApiError('unauthorized', `${name} header must be the API key`);
  return match[1];
}

/**
 * Reads `Authorization: Bearer <key>` (spec §5): missing/not Bearer → unauthorized; unknown →
 * invalid_api_key. With `apiKeyHeader` a header carrying the key alone is read too: `true` is Azure
 * OpenAI's `api-key` (the OpenAI-compatible routes), a name is that header (`x-goog-api-key` on the
 * Gemini-native route); both present and naming different keys → unauthorized (never a guess
 * between them).
 */
export function bearerKeyResolver(
  authenticate: (apiKey: string) => Account | undefined | Promise<Account | undefined>,
  options: { apiKeyHeader?: boolean | string } = {},
): AccountResolver {
  const known = (account: Account | undefined) => {
    if (!account) throw new ApiError('invalid_api_key', 'Invalid API key');
    // The key is right but no longer opens anything: the same type (clients stop either way).
    if (account.disabled) throw new ApiError('invalid_api_key', ACCOUNT_DISABLED);
    return account;
  };
  const headerName = options.apiKeyHeader === true ? 'api-key' : options.apiKeyHeader || undefined;
  return (request) => {
    const bearer = bearerKeyOf(request);
    const other = headerName === undefined ? undefined : keyHeaderOf(request, headerName);
    if (bearer !== undefined && other !== undefined && bearer !== other) {
      throw new ApiError('unauthorized', `Authorization and ${headerName} name different keys; send one`);
    }
    const key = bearer ?? other;
    if (key === undefined) return 'not-mine';
    const account = authenticate(key);
    return account instanceof Promise ? account.then(known) : known(account);
  };
}

/**
 * What a request with no credentials is told, naming what the route accepts: an API key (the
 * default), the website's session (/web/api takes no key), or either (the operator console's API).
 */
export const MISSING_CREDENTIALS = {
  key: 'Missing Authorization header; send "Authorization: Bearer <API_KEY>"',
  session:
    "Not signed in: the website's API (/web/api) takes the session cookie that POST /web/api/session sets, not an API key (integrations use /api/v1 with a key)",
  keyOrOperatorSession:
    'Missing credentials: the operator console\'s API takes an operator\'s API key ("Authorization: Bearer <API_KEY>") or the session cookie of an operator signed in on the website',
} as const;

/**
 * An onRequest hook: tries each resolver in turn; none answering → 401 unauthorized. Callback
 * style, and a resolver's immediate answer is taken at once: a request whose key is kept in memory
 * passes without a promise.
 */
export function requireAccount(
  resolvers: AccountResolver[],
  /** What a request with no credentials is told (the Gemini route names its own header). */
  missing: string = MISSING_CREDENTIALS.key,
): onRequestHookHandler {
  return (request, _reply, done) => {
    const accepted = (result: Resolved) => {
      if (!result || result === 'not-mine') return false;
      request.account = result;
      return true;
    };
    // A read-only key on a route that creates, changes or spends: 403 insufficient_scope.
    const admitted = () => {
      const refusal = request.account && scopeRefusal(request, request.account);
      done(refusal);
    };
    const tryFrom = (first: number): void => {
      for (let i = first; i < resolvers.length; i++) {
        let result: Resolved | Promise<Resolved>;
        try {
          result = (resolvers[i] as AccountResolver)(request);
        } catch (error) {
          done(error as Error);
          return;
        }
        if (result instanceof Promise) {
          result.then((found) => (accepted(found) ? admitted() : tryFrom(i + 1)), done);
          return;
        }
        if (accepted(result)) {
          admitted();
          return;
        }
      }
      done(new ApiError('unauthorized', missing));
    };
    tryFrom(0);
  };
}

/** The account of an authenticated request (routes behind `requireAccount`). */
export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new ApiError('unauthorized', 'Not authenticated');
  return request.account;
}
