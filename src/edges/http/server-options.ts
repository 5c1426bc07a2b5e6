import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import { AccessLog, nextRequestId } from './access-log.js';
import { answerClientError, answerFrameworkError, MAX_HEADER_BYTES } from './client-errors.js';
import { lazyRequestLogger } from './request-logger.js';

export interface RequestTimeouts {
  /** A body (or a header block) that sends nothing for this long is cut off. */
  bodyIdleMs: number;
  /** Time allowed for a whole request body, by default. */
  bodyDeadlineMs: number;
  /** Time allowed for a whole upload body (up to 25 MB). */
  uploadDeadlineMs: number;
}

/** The defaults of ATELIER_BODY_IDLE_TIMEOUT_MS, ATELIER_BODY_DEADLINE_MS, ATELIER_UPLOAD_DEADLINE_MS. */
export const DEFAULT_REQUEST_TIMEOUTS: RequestTimeouts = {
  bodyIdleMs: 30_000,
  bodyDeadlineMs: 60_000,
  uploadDeadlineMs: 300_000,
};

/**
 * Fastify options of every HTTP face of a node (the app, and a worker's /healthz): each refusal
 * made before a route runs — by Node's parser, by a timeout, by the router — leaves in the error
 * shape, and slow clients are cut off.
 */
export function edgeServerOptions(timeouts: RequestTimeouts) {
  return {
    // Node's parser: header block size, and the time allowed to send it (checked at this interval).
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: timeouts.bodyIdleMs,
      connectionsCheckingInterval: Math.max(25, Math.min(timeouts.bodyIdleMs / 2, 15_000)),
    },
    // A backstop for bodies no route reads (the route-level watch covers the ones that are read).
    requestTimeout: Math.max(timeouts.bodyDeadlineMs, timeouts.uploadDeadlineMs) + timeouts.bodyIdleMs,
    clientErrorHandler: answerClientError,
    // One access-log line per request (AccessLog) instead of Fastify's two, cheap ids, and a request
    // logger made only when the request logs a line of its own.
    logController: new AccessLog(),
    genReqId: nextRequestId,
    childLoggerFactory: lazyRequestLogger,
    requestIdHeader: false,
    frameworkErrors: answerFrameworkError,
    // Path parameters may be as long as the header block allows, so a long id is judged like any
    // other unknown id (404 not_found) instead of Fastify's 414 above 100 characters.
    routerOptions: { maxParamLength: MAX_HEADER_BYTES },
  } satisfies FastifyHttpOptions<Server>;
}
