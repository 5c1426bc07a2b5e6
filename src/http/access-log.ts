import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

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
 * One access-log line per request, written when the response is sent (Fastify's default writes
 * two, each serialising the whole request or reply). The request id joins it to any other line the
 * request logs; no header is logged, so neither a key nor a cookie can reach the log. The line is
 * built here from fixed fields, so it skips the logger's redaction pass (a third of a line's cost);
 * error lines carry an error object and keep it.
 */
export class AccessLog extends LogController {
  readonly #plain = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>();

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
      // The caller, by id only (never the key or the email), when the request was authenticated.
      ...(request.account ? { accountId: request.account.id } : {}),
    };
    // request.log binds reqId itself; the plain logger is the root's, so the line names it.
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else this.#unredacted(request.server.log).info({ reqId: request.id, ...line }, 'request completed');
  }

  #unredacted(root: FastifyBaseLogger): FastifyBaseLogger {
    let plain = this.#plain.get(root);
    if (plain === undefined) {
      plain = root.child({}, { redact: [] } as Parameters<FastifyBaseLogger['child']>[1]);
      this.#plain.set(root, plain);
    }
    return plain;
  }
}
