import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { LatencySeries } from '../platform/latency-histogram.js';
import type { Metrics } from '../platform/metrics.js';
import { ApiError } from './errors.js';
import { hookList } from './route-hooks.js';

/**
 * Every request's latency by method, route template (never the raw URL: ids stay out) and status.
 * Each route gets its own observer, made when the route is registered (install this before any
 * route), which knows its template; requests no route matched are `unmatched`. An observer keeps
 * the labelled child of each (method, status) it has seen, so a request neither builds the route's
 * options nor a label object.
 */
export function installRequestMetrics(
  app: FastifyInstance,
  metrics: Pick<Metrics, 'httpRequestSeconds'>,
): void {
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

const sameToken = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/**
 * GET /metrics in Prometheus text format, on every role. Open by default (bind the port privately,
 * or scrape through the private network); with ATELIER_METRICS_TOKEN it asks for that bearer token.
 * Not in the OpenAPI document: it is for the operator's scraper, not for API callers.
 */
export async function metricsRoutes(
  app: FastifyInstance,
  { metrics, token }: { metrics: Metrics; token?: string | undefined },
) {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== undefined) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!sameToken(given, token))
        throw new ApiError('unauthorized', 'Send "Authorization: Bearer <ATELIER_METRICS_TOKEN>"');
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
