import type { FastifyInstance } from 'fastify';

let counter = 0;
/** A process prefix, so ids from different nodes (and restarts) do not collide in joined logs. */
const processPrefix = `req_${Date.now().toString(36)}${process.pid.toString(36)}`;

/**
 * Request ids: a per-process prefix and a counter. Cheaper than random bytes per request, unique
 * within a node's life, and distinct across nodes and restarts; they only join log lines (they
 * grant nothing, so they need not be unguessable).
 */
export const nextRequestId = (): string => `${processPrefix}_${(++counter).toString(36)}`;

/**
 * One access-log line per request, written when the response is sent (Fastify's own request logging
 * is off: it writes two lines per request). The id joins it to any other line the request logs.
 */
export function installAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}
