import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './errors.js';

/** How often a closing server looks for keep-alive connections that went idle. */
const IDLE_SWEEP_MS = 100;
/** How long requests in flight get to finish once the server closes; then their sockets are cut. */
export const HTTP_DRAIN_MS = 10_000;

/**
 * Graceful close for the HTTP face. Once the server starts closing, new requests are answered
 * `503 service_unavailable` in the error shape (Fastify's own `return503OnClosing` answers in its
 * shape), requests already in flight finish normally but carry `Connection: close`, and keep-alive
 * connections are closed as soon as they go idle — otherwise a connection whose last response
 * ended just after close began would hold the server open until its keep-alive timeout — and so are
 * connections that never sent a request. A request
 * still running after `HTTP_DRAIN_MS` is logged (method and URL) and its connection cut, so a stuck
 * request cannot keep a node from shutting down.
 *
 * Nothing is tracked per request (every request passes here): the open connections are, and at the
 * drain deadline each one's request in progress is the one its current response answers.
 */
/** `METHOD url` of the request each connection is answering now (Node's response in progress on it). */
function requestsInProgress(connections: Iterable<Socket>): string[] {
  const found: string[] = [];
  for (const socket of connections) {
    const request = (socket as { _httpMessage?: { req?: IncomingMessage } })._httpMessage?.req;
    if (request) found.push(`${request.method} ${request.url}`);
  }
  return found;
}

export function refuseWhileClosing(app: FastifyInstance, drainMs = HTTP_DRAIN_MS): void {
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  let drainDeadline: NodeJS.Timeout | undefined;
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // Callback style (every request passes here; an async hook costs a promise and a tick).
  app.addHook('onRequest', (_request, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      reply
        .code(503)
        .send(errorBody('service_unavailable', 'The server is shutting down; retry the request'));
      return;
    }
    done();
  });
  app.addHook('preClose', async () => {
    closing = true;
    sweep = setInterval(() => {
      app.server.closeIdleConnections();
      // Node counts a connection that has not sent a byte as busy (its headers timeout runs), but
      // it has no request to finish: a client's spare connection (browsers and undici open some
      // ahead of need) would otherwise hold the close until the drain deadline.
      for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
    }, IDLE_SWEEP_MS);
    sweep.unref();
    drainDeadline = setTimeout(() => {
      const inFlight = requestsInProgress(connections);
      app.log.warn(
        { inFlight: inFlight.slice(0, 20), count: inFlight.length },
        `requests still running ${drainMs} ms into shutdown; closing their connections`,
      );
      app.server.closeAllConnections();
    }, drainMs);
    drainDeadline.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    clearTimeout(drainDeadline);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
