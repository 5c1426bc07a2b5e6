import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError } from './errors.js';
import { hookList, routeMethods } from './route-hooks.js';
import type { RequestTimeouts } from './server-options.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Time allowed to receive this route's whole request body (default: the app's body deadline). */
    bodyDeadlineMs?: number;
  }
}

type BodyTimeouts = Pick<RequestTimeouts, 'bodyIdleMs' | 'bodyDeadlineMs'>;

/** A request whose body is still arriving over a real socket (app.inject bodies are complete). */
function bodyStillArriving(request: FastifyRequest): boolean {
  const { headers, raw } = request;
  const declaresBody =
    headers['transfer-encoding'] !== undefined ||
    (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  return declaresBody && !raw.complete && raw.socket instanceof Socket;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Watches one request body: silence on the socket for `bodyIdleMs`, or the route's deadline passing
 * before the body ends, fails it with 408 request_timeout. The error is raised on the request
 * stream, so whoever reads the body (Fastify's JSON parser, multipart, the upload's temp-file
 * writer) fails through its ordinary path — the temp file is removed — and the error handler
 * answers in the error shape with `Connection: close`. Once a response has started there is
 * nothing left to tell the client: the socket is closed.
 */
function watchBody(
  request: FastifyRequest,
  reply: FastifyReply,
  limits: { bodyIdleMs: number },
  deadlineMs: number,
): void {
  const req = request.raw;
  const socket = req.socket;
  let watching = true;

  const stop = () => {
    if (!watching) return;
    watching = false;
    clearTimeout(deadline);
    req.off('end', bodyEnded);
    req.off('timeout', onIdle);
    reply.raw.off('timeout', onIdle);
    reply.raw.off('finish', stop);
    reply.raw.off('close', stop);
  };
  // Only while the response has not finished: afterwards Node owns the socket's timeout (keep-alive).
  function bodyEnded() {
    stop();
    socket.setTimeout(0);
  }
  function fail(error: ApiError) {
    stop();
    if (reply.sent || reply.raw.headersSent) {
      socket.destroy();
      return;
    }
    reply.header('connection', 'close');
    if (req.listenerCount('error') > 0) req.emit('error', error);
    else reply.code(error.status).send({ error: { type: error.type, message: error.message } });
  }
  function onIdle() {
    // Node asks the response when the body is complete: then the silence is the handler's, not ours.
    if (req.complete) bodyEnded();
    else
      fail(
        new ApiError(
          'request_timeout',
          `The request body stalled (nothing received for ${seconds(limits.bodyIdleMs)})`,
        ),
      );
  }
  const deadline = setTimeout(
    () =>
      fail(
        new ApiError('request_timeout', `The request body was not received within ${seconds(deadlineMs)}`),
      ),
    deadlineMs,
  );

  socket.setTimeout(limits.bodyIdleMs);
  req.on('timeout', onIdle);
  reply.raw.on('timeout', onIdle);
  req.once('end', bodyEnded);
  reply.raw.once('finish', stop);
  reply.raw.once('close', stop);
}

/**
 * Cuts off request bodies that stall or trickle (DESIGN.md §2 "Slow or stalled bodies"), on the
 * routes whose body Fastify reads: every method but GET and HEAD (Fastify never reads theirs).
 * Install it before any route.
 */
export function installBodyTimeouts(app: FastifyInstance, limits: BodyTimeouts): void {
  app.addHook('onRoute', (route) => {
    if (routeMethods(route).every((method) => method === 'GET' || method === 'HEAD')) return;
    const deadlineMs = route.config?.bodyDeadlineMs ?? limits.bodyDeadlineMs;
    // Callback style: an async hook costs a promise and a tick.
    const watch: onRequestHookHandler = (request, reply, done) => {
      if (bodyStillArriving(request)) watchBody(request, reply, limits, deadlineMs);
      done();
    };
    route.onRequest = [...hookList(route.onRequest), watch];
  });
}
