import type { FastifyInstance } from 'fastify';
import { errorBody } from './errors.js';

/** How often a closing server looks for keep-alive connections that went idle. */
const IDLE_SWEEP_MS = 100;

/**
 * Graceful close for the HTTP face. Once the server starts closing, new requests are answered
 * `503 service_unavailable` in the error shape (Fastify's own `return503OnClosing` answers in its
 * shape), requests already in flight finish normally but carry `Connection: close`, and keep-alive
 * connections are closed as soon as they go idle — otherwise a connection whose last response
 * ended just after close began would hold the server open until its keep-alive timeout.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return reply
      .code(503)
      .send(errorBody('service_unavailable', 'The server is shutting down; retry the request'));
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
