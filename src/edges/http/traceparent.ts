import type { FastifyRequest } from 'fastify';

/**
 * The caller's W3C `traceparent` header as sent (checked where it is read: an invalid one starts a
 * trace of its own, as Trace Context asks); undefined when absent or repeated.
 */
export function traceparentOf(request: FastifyRequest): string | undefined {
  const value = request.headers.traceparent;
  return typeof value === 'string' ? value : undefined;
}
