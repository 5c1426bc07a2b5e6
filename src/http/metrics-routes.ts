import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../platform/metrics.js';
import { ApiError } from './errors.js';

/**
 * Every request's latency by method, route template (never the raw URL: ids stay out) and status.
 * The labelled child of each (method, route, status) is kept: prom-client hashes the label object
 * on every `observe` otherwise, a measurable share of a poll's cost.
 */
export function installRequestMetrics(
  app: FastifyInstance,
  metrics: Pick<Metrics, 'httpRequestSeconds'>,
): void {
  type Series = ReturnType<Metrics['httpRequestSeconds']['labels']>;
  const series = new Map<string, Series>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const key = `${request.method} ${status} ${route}`;
    let child = series.get(key);
    if (child === undefined) {
      // Bounded: methods × route templates × statuses, never anything a caller can vary freely.
      child = metrics.httpRequestSeconds.labels({ method: request.method, route, status });
      series.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
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
