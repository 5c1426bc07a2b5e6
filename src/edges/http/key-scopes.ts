import type { FastifyRequest } from 'fastify';
import type { Account } from '../../capabilities/accounts/index.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route that only reads although its method is not GET (a POST whose body carries what a
     * query string could not hold, e.g. POST /downloads/zip): a read-only key may call it.
     */
    readsOnly?: boolean;
  }
}

/**
 * Routes a `read` key may not call although they only read: they hand out a secret that would let
 * its holder act for the account (the webhook signing secret signs what receivers trust).
 */
const SECRET_READS = ['/user/webhook-secret'] as const;

/**
 * What a `read` key (for dashboards: polls, history, status, usage) may call: GET (and HEAD)
 * routes (and the few that only read by POST, `readsOnly`), which never create, change or spend
 * anything, except those that hand out a secret. Every
 * other method — generate, upload, cancel, webhook changes, the OpenAI- and Gemini-compatible
 * generate and edit routes — creates, changes or spends. One rule for every surface, so a route
 * added later is refused to read keys unless it is a GET.
 */
export function readScopeAllows(request: FastifyRequest): boolean {
  const readsOnly = request.routeOptions.config?.readsOnly === true;
  if (request.method !== 'GET' && request.method !== 'HEAD' && !readsOnly) return false;
  const url = request.routeOptions.url ?? '';
  return !SECRET_READS.some((path) => url.endsWith(path));
}

export const INSUFFICIENT_SCOPE_MESSAGE =
  'This API key is read-only (scope read): it may poll tasks and read history, status and usage, not create, change or spend; use a full key';

/** The refusal of a `read` key on a route that needs a full one; undefined when the account may go on. */
export function scopeRefusal(request: FastifyRequest, account: Account): ApiError | undefined {
  if (account.apiKey?.scope !== 'read' || readScopeAllows(request)) return undefined;
  return new ApiError('insufficient_scope', INSUFFICIENT_SCOPE_MESSAGE);
}
