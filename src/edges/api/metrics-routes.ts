import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Registry } from 'prom-client';
import { LatencyHistogram, type LatencySeries } from '../../base/observability/latency-histogram.js';
import { SECONDS } from '../../base/observability/metrics.js';
import { ApiError } from '../http/errors.js';
import { hookList } from '../http/route-hooks.js';

/**
 * The HTTP requests' metric, registered once per core (every app built over it records here):
 * series resolved once per route, method and status (see LatencyHistogram).
 */
export function createRequestMetrics(registry: Registry) {
  return {
    httpRequestSeconds: new LatencyHistogram(
      'atelier_http_request_duration_seconds',
      'HTTP requests by method, route template and status, with their latency',
      SECONDS,
      [registry],
    ),
  };
}

export type RequestMetrics = ReturnType<typeof createRequestMetrics>;

/** What GET /metrics serves and every request records in: the core's registry and request metrics. */
export type ServedMetrics = RequestMetrics & { registry: Registry };

/**
 * Every request's latency by method, route template (never the raw URL: ids stay out) and status.
 * Each route gets its own observer, made when the route is registered (install this before any
 * route), which knows its template; requests no route matched are `unmatched`. An observer keeps
 * the labelled child of each (method, status) it has seen, so a request neither builds the route's
 * options nor a label object.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: RequestMetrics): void {
  const observer = (route: string) => {
    // Bounded: methods × statuses of one route, never anything a caller can vary freely.
    const series = new Map<string, LatencySeries>();
    return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const key = `${request.method} ${reply.statusCode}`;
      let child = series.get(key);
      if (child === undefined) {
        child = metrics.httpRequestSeconds.series({
          method: request.method,
          route,
          status: String(reply.statusCode),
        });
        series.set(key, child);
      }
      child.observe(reply.elapsedTime / 1000);
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    route.onResponse = [...hookList(route.onResponse), observer(route.url)];
  });
  const unmatched = observer('unmatched');
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request, reply, done);
    else done();
  });
}

/**
 * Compares a presented token with the configured one in time that depends on neither: both are
 * HMAC-SHA-256'd under a key drawn once per process, and the 32-byte digests are compared with
 * `timingSafeEqual` (comparing the strings would return early on a length mismatch, telling a
 * caller the token's length).
 */
export function tokenMatcher(expected: string): (given: string) => boolean {
  const key = randomBytes(32);
  const digest = (value: string) => createHmac('sha256', key).update(value).digest();
  const expectedDigest = digest(expected);
  return (given) => timingSafeEqual(digest(given), expectedDigest);
}

/**
 * GET /metrics in Prometheus text format, on every role, behind `Authorization: Bearer
 * <ATELIER_METRICS_TOKEN>` (Prometheus' `authorization: { credentials }` scrape setting). Without a
 * token configured it is off — 404, like any unknown route, with a message for the operator — so a
 * node exposed by mistake never publishes its figures. Not in the OpenAPI document: it is for the
 * operator's scraper, not for API callers.
 */
export async function metricsRoutes(
  app: FastifyInstance,
  { metrics, token }: { metrics: ServedMetrics; token?: string | undefined },
) {
  const matches = token === undefined ? undefined : tokenMatcher(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (matches === undefined)
      throw new ApiError('not_found', 'Metrics are off: set ATELIER_METRICS_TOKEN to serve GET /metrics');
    const given = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!matches(given))
      throw new ApiError('unauthorized', 'Send "Authorization: Bearer <ATELIER_METRICS_TOKEN>"');
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
