import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorBodySchema } from '../../base/contract/errors.js';
import { OAUTH_TAG } from '../../base/contract/oauth-wire.js';
import { MAX_HEADER_BYTES } from './client-errors.js';
import type { ErrorType } from './errors.js';
import { routeMethods } from './route-hooks.js';

type Response = { description?: string; content?: Record<string, { schema: unknown }> };

/** Methods whose requests carry a body the app parses (JSON, multipart, an image). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The refusals the HTTP kit answers before (or around) a route's handler, and which routes each
 * can reach — the rule the OpenAPI document follows, so every status an operation can answer is
 * listed on it:
 *
 * - 400 invalid_request: a route with any input (path parameters, query, headers or a body): the
 *   route schema's validation, a body that is not JSON or not of an accepted Content-Type;
 * - 404 not_found: a route with path parameters (an id over the router's length is no route,
 *   and an id that names nothing is 404 in every handler);
 * - 408 request_timeout and 413 payload_too_large: a route that takes a body (its deadlines and
 *   size limit, http/body-timeouts.ts and the body limits);
 * - 431 headers_too_large: every route (request line and headers over 16 kB: Node's parser);
 * - 503 service_unavailable: every route (the server shutting down, http/refuse-while-closing.ts).
 *
 * 415 is no framework refusal here: a Content-Type no parser takes is 400 (error-handler.ts); the
 * routes that judge an image's bytes declare their own 415.
 */
export function frameworkRefusals(route: RouteOptions): Map<number, ErrorType> {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const hasBody = routeMethods(route).some((method) => BODY_METHODS.has(method));
  const hasParams = schema.params !== undefined || /[:*]/.test(route.url);
  const hasInput = hasBody || hasParams || schema.querystring !== undefined || schema.headers !== undefined;
  const refusals = new Map<number, ErrorType>();
  if (hasInput) refusals.set(400, 'invalid_request');
  if (hasParams) refusals.set(404, 'not_found');
  if (hasBody) {
    refusals.set(408, 'request_timeout');
    refusals.set(413, 'payload_too_large');
  }
  refusals.set(431, 'headers_too_large');
  refusals.set(503, 'service_unavailable');
  return refusals;
}

const refusalDescriptions: Partial<Record<ErrorType, string>> = {
  invalid_request: 'The request does not match its documented schema, or its body is not JSON',
  not_found: 'Nothing of the account has this id',
  request_timeout: 'The body was not received in time',
  payload_too_large: 'The body is over its size limit',
  headers_too_large: `The request line and headers exceed ${MAX_HEADER_BYTES / 1024} kB`,
  service_unavailable: 'The server is shutting down; retry',
};

/** The error shape a route answers in: the content of one of its own error answers. */
function errorContentOf(responses: Record<string, Response>): Response['content'] {
  const declared = Object.entries(responses).find(
    ([status, answer]) => Number(status) >= 400 && answer?.content !== undefined,
  );
  return declared?.[1].content ?? { 'application/json': { schema: errorBodySchema } };
}

/**
 * Adds the framework's refusals (frameworkRefusals) a route can answer to its declared answers,
 * in the route's own error shape; the statuses it declares itself stay as they are. Only routes
 * that declare their answers (`schema.response`): the rest are not documented.
 */
export function declareFrameworkRefusals(route: RouteOptions): void {
  const schema = route.schema as (Record<string, unknown> & { response?: unknown }) | undefined;
  if (!schema?.response || schema.hide === true) return;
  // OAuth's routes read their own input and answer their own refusals (oauth-route-schemas.ts).
  if ((schema.tags as string[] | undefined)?.includes(OAUTH_TAG)) return;
  const responses = schema.response as Record<string, Response>;
  const content = errorContentOf(responses);
  const added: Record<string, Response> = {};
  for (const [status, type] of frameworkRefusals(route)) {
    if (String(status) in responses) continue;
    added[status] = { description: `${refusalDescriptions[type]} (${type})`, content };
  }
  // A new object: a response map two routes share (GET and POST of one download) stays theirs.
  if (Object.keys(added).length > 0) route.schema = { ...schema, response: { ...responses, ...added } };
}

/** Every route registered from here on declares the framework's refusals it can answer. */
export function installFrameworkRefusals(app: FastifyInstance): void {
  app.addHook('onRoute', declareFrameworkRefusals);
}
