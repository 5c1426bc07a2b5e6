import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  BudgetExceeded,
  DomainError,
  InvalidInput,
  QuotaExceeded,
  RateLimited,
} from '../../base/domain/errors.js';
import { ApiError, apiErrorOf, type ErrorType, errorBody, errorStatus } from './errors.js';
import { validationMessage } from './validation.js';

/** The media type the caller sent, as it can be shown back (no parameters, bounded). */
function sentMediaType(request: FastifyRequest): string | undefined {
  const header = request.headers['content-type'];
  if (header === undefined || header.trim() === '') return undefined;
  const mediaType = (header.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType.length > 100 ? `${mediaType.slice(0, 100)}…` : mediaType;
}

/**
 * A body whose Content-Type no parser of the route accepts: 400 invalid_request (DESIGN.md §2,
 * "wrong content type"), saying what was sent and what to send. On upload too: 415 is about the
 * bytes of an image body (by magic bytes), and a body sent as, say, curl's default
 * application/x-www-form-urlencoded was never offered as an image.
 */
function wrongContentType(request: FastifyRequest): { type: ErrorType; message: string } {
  const sent = sentMediaType(request);
  const what = sent === undefined ? 'Content-Type is missing' : `Content-Type ${sent} is not accepted`;
  if (/^\/(api\/)?v1\/upload\b/.test(request.url)) {
    return {
      type: 'invalid_request',
      message:
        `${what} for an upload: send JSON {"source_url"} as application/json, multipart/form-data ` +
        'with a "file" field, or the image itself as image/png, image/jpeg, image/webp, image/gif, ' +
        `image/bmp or application/octet-stream (curl: -F file=@cat.png, or -H 'Content-Type: image/png' --data-binary @cat.png)`,
    };
  }
  return {
    type: 'invalid_request',
    message: `${what}; send the body as JSON with Content-Type: application/json`,
  };
}

/** What an unknown route (or a method no route takes) is told. */
const noRouteMessage = (request: FastifyRequest) =>
  `No route for ${request.method} ${request.url.split('?')[0]}`;

/** Maps a framework-level error (parsing, limits, routing) to our closed list of types. */
function classifyFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
): { type: ErrorType; message: string; field?: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { type: 'invalid_request', message: 'Body is not valid JSON' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { type: 'invalid_request', message: 'Body is empty; expected a JSON object' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { type: 'payload_too_large', message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return wrongContentType(request);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { type: 'invalid_request', message: 'Request body length does not match its Content-Length' };
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { type: 'invalid_request', message: 'Invalid Content-Type header' };
    case 'FST_REQ_FILE_TOO_LARGE':
      return { type: 'payload_too_large', message: 'Image is larger than 25 MB' };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { type: 'invalid_request', message: 'Expected multipart/form-data' };
    // Fastify refuses a QUERY without a Content-Type (RFC 10008) before routing: no route takes
    // QUERY, so it is answered like every other method no route takes.
    case 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE':
      return request.is404
        ? { type: 'not_found', message: noRouteMessage(request) }
        : { type: 'invalid_request', message: `Content-Type is missing for ${request.method}` };
    default:
      break;
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const message = validationMessage(error.validation, error.validationContext);
    const field = error.validation[0]?.instancePath.split('/')[1];
    return { type: 'invalid_request', message, ...(field ? { field } : {}) };
  }
  if (error.validation) return { type: 'invalid_request', message: error.message };
  const status = error.statusCode ?? 500;
  if (status === 413) return { type: 'payload_too_large', message: 'Request body is too large' };
  if (status === 415) return { type: 'unsupported_media_type', message: 'Unsupported media type' };
  if (status === 404) return { type: 'not_found', message: 'Not found' };
  if (status === 405) return { type: 'method_not_allowed', message: 'Method not allowed' };
  if (status >= 400 && status < 500) return { type: 'invalid_request', message: error.message };
  return undefined;
}

/**
 * How an edge answers errors on its own routes, when not in the `{ error: { type, message } }`
 * shape: its body for an error answer, and the errors only it throws, answered as it says.
 */
export interface ErrorBodies {
  /** The body of an answer with this status, error type, message and (when one is to blame) field. */
  body(status: number, type: ErrorType, message: string, field?: string): unknown;
  /** Answers an error of the edge's own; false when `thrown` is not one of them. */
  ownError?(thrown: unknown, request: FastifyRequest, reply: FastifyReply): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's error bodies, when not the default shape (installErrorBodies). */
    errorBodies?: ErrorBodies;
  }
}

/**
 * Every route registered from here on in `scope` answers its errors with `bodies`, and so does
 * what fails in `scope` before any route matched (its own not-found handler's hooks, a body its
 * parser refused): the scope's error handler is the same mapper with these bodies.
 */
export function installErrorBodies(scope: FastifyInstance, bodies: ErrorBodies): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, errorBodies: bodies };
  });
  scope.setErrorHandler((thrown: FastifyError, request, reply) =>
    answerError(thrown, request, reply, bodies),
  );
}

/**
 * One error mapper for the whole app: every failure leaves as `{ error: { type, message } }`, or,
 * on routes that registered their own error bodies (installErrorBodies), in their shape with the same
 * status.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError, request, reply) =>
    answerError(thrown, request, reply, request.routeOptions.config?.errorBodies),
  );

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('not_found', noRouteMessage(request))),
  );
}

/** Maps anything thrown to its status and body: the spec's shape, or `bodies`' when an edge set its own. */
function answerError(
  thrown: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  bodies: ErrorBodies | undefined,
) {
  const send = (status: number, type: ErrorType, message: string, field?: string) =>
    reply.code(status).send(bodies ? bodies.body(status, type, message, field) : errorBody(type, message));
  if (bodies?.ownError?.(thrown, request, reply)) return reply;
  if (thrown instanceof RateLimited || thrown instanceof QuotaExceeded || thrown instanceof BudgetExceeded)
    reply.header('retry-after', String(Math.max(1, Math.ceil(thrown.retryAfterMs / 1000))));
  const error = thrown instanceof DomainError ? apiErrorOf(thrown) : thrown;
  if (error instanceof ApiError) {
    if (error.status >= 500) request.log.error({ err: error }, 'request failed');
    const field = thrown instanceof InvalidInput ? thrown.field : undefined;
    return send(error.status, error.type, error.message, field);
  }
  const known = classifyFrameworkError(error, request);
  if (known) return send(errorStatus[known.type], known.type, known.message, known.field);
  // A bug: log everything, tell the caller nothing internal.
  request.log.error({ err: error }, 'unexpected error');
  return send(500, 'internal_error', `Internal server error (request id ${request.id})`);
}
