import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, QuotaExceeded, RateLimited } from '../platform/domain-errors.js';
import { ApiError, apiErrorOf, type ErrorType, errorBody, errorStatus } from './errors.js';
import { validationMessage } from './validation.js';

/** Maps a framework-level error (parsing, limits, routing) to our closed list of types. */
function classifyFrameworkError(
  error: FastifyError,
  url: string,
): { type: ErrorType; message: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { type: 'invalid_request', message: 'Body is not valid JSON' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { type: 'invalid_request', message: 'Body is empty; expected a JSON object' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { type: 'payload_too_large', message: 'Request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      // On upload a body that is not an image is the media-type error of DESIGN.md §2.
      if (/^\/(api\/)?v1\/upload\b/.test(url)) {
        return {
          type: 'unsupported_media_type',
          message: 'Send JSON {"source_url"}, multipart/form-data with a "file" field, or a raw image body',
        };
      }
      return { type: 'invalid_request', message: 'Unsupported Content-Type; send application/json' };
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { type: 'invalid_request', message: 'Invalid Content-Type header' };
    case 'FST_REQ_FILE_TOO_LARGE':
      return { type: 'payload_too_large', message: 'Image is larger than 25 MB' };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { type: 'invalid_request', message: 'Expected multipart/form-data' };
    default:
      break;
  }
  if (hasZodFastifySchemaValidationErrors(error))
    return { type: 'invalid_request', message: validationMessage(error.validation, error.validationContext) };
  if (error.validation) return { type: 'invalid_request', message: error.message };
  const status = error.statusCode ?? 500;
  if (status === 413) return { type: 'payload_too_large', message: 'Request body is too large' };
  if (status === 415) return { type: 'unsupported_media_type', message: 'Unsupported media type' };
  if (status === 404) return { type: 'not_found', message: 'Not found' };
  if (status === 405) return { type: 'method_not_allowed', message: 'Method not allowed' };
  if (status >= 400 && status < 500) return { type: 'invalid_request', message: error.message };
  return undefined;
}

/** One error mapper for the whole app: every failure leaves as `{ error: { type, message } }`. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    if (thrown instanceof RateLimited || thrown instanceof QuotaExceeded)
      reply.header('retry-after', String(Math.max(1, Math.ceil(thrown.retryAfterMs / 1000))));
    const error = thrown instanceof DomainError ? apiErrorOf(thrown) : thrown;
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(error.status).send(errorBody(error.type, error.message));
    }
    const known = classifyFrameworkError(error, request.url);
    if (known) return reply.code(errorStatus[known.type]).send(errorBody(known.type, known.message));
    // A bug: log everything, tell the caller nothing internal.
    request.log.error({ err: error }, 'unexpected error');
    return reply
      .code(500)
      .send(errorBody('internal_error', `Internal server error (request id ${request.id})`));
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorBody('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
