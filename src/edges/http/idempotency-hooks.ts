import { createHash } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyRequest,
  onSendAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import { z } from 'zod';
import {
  CLAIM_LEASE_MS,
  type IdempotencyClaim,
  type IdempotencyRepository,
} from '../../capabilities/idempotency/index.js';
import { accountOf } from './authentication.js';
import { ApiError } from './errors.js';
import { headerLineCount } from './header-lines.js';
import { hookList, routeMethods } from './route-hooks.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The Idempotency-Key header as POST routes declare it. The hook below checks it first (before
 * the schema, with its own message), so this is what the document shows; other headers pass.
 */
export const idempotencyHeadersSchema = z.looseObject({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .min(1)
    .max(MAX_IDEMPOTENCY_KEY_LENGTH)
    // HTTP drops a header value's leading and trailing blanks: a key of blanks alone arrives empty.
    .regex(/\S/, 'must not be blank')
    .optional()
    .describe(
      `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, not all blank, per account, kept 24 h: a repeat with the same body replays the first successful response (header Idempotent-Replayed: true) and submits nothing; refusals (4xx, 5xx) are not kept. An account holds at most ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT keys (default 10,000), then 429`,
    ),
});

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set when this request claimed an Idempotency-Key: a handler that commits a result passes it
     * on, to record the response in the same transaction; otherwise onSend records the response.
     */
    idempotencyClaim?: IdempotencyClaim;
  }
}

/**
 * JSON with object keys sorted, so the same body always hashes the same. Iterative (an explicit
 * stack, not recursion): a body nested 100,000 deep, well under the 1 MB limit, must not overflow
 * the call stack. The output is byte for byte what the recursive version wrote, so hashes of keys
 * claimed before an upgrade still match.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  // A string on the stack is written as is; a `{ value }` is serialised.
  const stack: Array<string | { value: unknown }> = [{ value: root }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const { value } = item;
    if (Array.isArray(value)) {
      out.push('[');
      stack.push(']');
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i] });
        if (i > 0) stack.push(',');
      }
    } else if (value !== null && typeof value === 'object') {
      const entries: Array<[string, unknown]> = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out.push('{');
      stack.push('}');
      // Pushed last first, so they pop in key order, separated by commas.
      entries.reverse().forEach(([key, entry], fromLast) => {
        stack.push({ value: entry }, `${JSON.stringify(key)}:`);
        if (fromLast < entries.length - 1) stack.push(',');
      });
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  return out.join('');
}

function requestHash(request: FastifyRequest): string {
  const path = (request.routeOptions.url ?? request.url).replace(/^\/v1\//, '/api/v1/');
  return createHash('sha256')
    .update(`${request.method} ${path}\n${request.url.split('?')[0]}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}

/** A route's hooks of one kind as a list (a route may declare none, one, or several). */
/**
 * Idempotency-Key on POST requests with a JSON body (generate, upload by URL): the same key and
 * body within 24 h replay the first successful response and submit nothing new; the same key with
 * another body is 422 idempotency_mismatch; while the first is still running, 409
 * idempotency_in_progress. A refusal (4xx, 5xx) is not kept: the key is free again. Keys are scoped
 * per account, at most `maxRecordsPerAccount` of them at once (past it, 429). Direct (binary) uploads are content-addressed, so a repeat is
 * harmless and the header is not needed there.
 */
export function installIdempotency(
  app: FastifyInstance,
  { repository }: { repository: IdempotencyRepository },
) {
  const renewals = new WeakMap<FastifyRequest, NodeJS.Timeout>();

  // Before validation: a body the schema refuses is answered like any other 4xx (and not kept).
  const claimOrReplay: preValidationAsyncHookHandler = async (request, reply) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return;
    // Node joins repeated lines into "a, b": a proxy and the service could each read another key.
    if (headerLineCount(request, IDEMPOTENCY_HEADER) > 1)
      throw new ApiError('invalid_request', 'Send exactly one Idempotency-Key header');
    if (typeof header !== 'string' || header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new ApiError(
        'invalid_request',
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, given once`,
      );
    }
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && !/^application\/json\b/i.test(contentType)) return;
    const account = accountOf(request);
    const claim = await repository.claim(account.id, header, requestHash(request));
    if (claim.kind === 'claimed') {
      request.idempotencyClaim = claim.claim;
      renewals.set(request, keepClaimAlive(claim.claim));
      return;
    }
    const { row } = claim;
    if (row.request_hash !== requestHash(request)) {
      throw new ApiError(
        'idempotency_mismatch',
        'This Idempotency-Key was used with a different request body',
      );
    }
    if (row.state !== 'done' || row.status_code === null) {
      throw new ApiError(
        'idempotency_in_progress',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
    reply
      .code(row.status_code)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(row.response_body);
    return reply;
  };

  const recordAnswer: onSendAsyncHookHandler = async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    clearInterval(renewals.get(request));
    // Both are no-ops when the handler already recorded the response with what it committed.
    // Only successes are kept (and replayed for 24 h). 5xx is our failure (or the upstream
    // refused) and 429 a quota: the caller retries with the same key. A 4xx refusal committed
    // nothing, so sending it again is harmless and is answered afresh: keeping it would spend a
    // record of the account's cap (ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT) on every bad request.
    const keep = reply.statusCode < 400 && typeof payload === 'string';
    if (!keep) await repository.release(claim);
    else await repository.complete(claim, reply.statusCode, payload as string);
    return payload;
  };

  // Only POST routes carry the hooks: a poll never pays for them.
  app.addHook('onRoute', (route) => {
    if (!routeMethods(route).includes('POST')) return;
    route.preValidation = [...hookList(route.preValidation), claimOrReplay];
    route.onSend = [...hookList(route.onSend), recordAnswer];
  });

  /**
   * Renews the claim's lease while its request runs (a slow reference download, a busy database),
   * so only a dead request's key runs out; stops once the claim is recorded, released or lost.
   */
  function keepClaimAlive(claim: IdempotencyClaim): NodeJS.Timeout {
    const timer = setInterval(() => {
      repository.renew(claim).then(
        (held) => {
          if (!held) clearInterval(timer);
        },
        (error: unknown) => app.log.warn({ err: error }, 'Idempotency-Key claim renewal failed'),
      );
    }, CLAIM_LEASE_MS / 3);
    timer.unref();
    return timer;
  }
}
