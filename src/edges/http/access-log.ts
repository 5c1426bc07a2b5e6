import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino from 'pino';

let counter = 0;
/** A process prefix, so ids from different nodes (and restarts) do not collide in joined logs. */
const processPrefix = `req_${Date.now().toString(36)}${process.pid.toString(36)}`;

/**
 * Request ids: a per-process prefix and a counter. Cheaper than random bytes per request, unique
 * within a node's life, and distinct across nodes and restarts; they only join log lines (they
 * grant nothing, so they need not be unguessable).
 */
export const nextRequestId = (): string => `${processPrefix}_${(++counter).toString(36)}`;

type PinoInternals = {
  [pino.symbols.streamSym]?: { write(line: string): unknown };
  [pino.symbols.chindingsSym]?: string;
  isLevelEnabled?(level: string): boolean;
};

/** The fields of the access line, in the order they are written. */
export interface AccessFields {
  reqId: string;
  method: string;
  url: string;
  statusCode: number;
  responseTimeMs: number;
  accountId?: string;
}

/**
 * The line pino writes for `logger.info(fields, 'request completed')` (level, time, the logger's
 * bindings, the fields, the message), built as one template instead of pino's generic walk over
 * the object: the access line is the largest piece of our own work on a poll. Checked against
 * pino's own output in access-log.test.ts. Undefined when `logger` is not a plain pino logger.
 */
export function accessLine(logger: FastifyBaseLogger, fields: AccessFields): string | undefined {
  const bindings = (logger as unknown as PinoInternals)[pino.symbols.chindingsSym];
  if (typeof bindings !== 'string') return undefined;
  const account = fields.accountId === undefined ? '' : `,"accountId":${JSON.stringify(fields.accountId)}`;
  return `{"level":30,"time":${Date.now()}${bindings},"reqId":${JSON.stringify(fields.reqId)},"method":${JSON.stringify(fields.method)},"url":${JSON.stringify(fields.url)},"statusCode":${fields.statusCode},"responseTimeMs":${fields.responseTimeMs}${account},"msg":"request completed"}\n`;
}

/**
 * One access-log line per request, written when the response is sent (Fastify's default writes
 * two, each serialising the whole request or reply). The request id joins it to any other line the
 * request logs; no header is logged, so neither a key nor a cookie can reach the log. Its fields
 * are fixed, so the line needs no redaction pass and is written straight to the logger's
 * destination (see `accessLine`); error lines carry an error object and go through the logger.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const responseTimeMs = Math.round(reply.elapsedTime * 10) / 10;
    // The caller, by id only (never the key or the email), when the request was authenticated.
    const accountId = request.account?.id;
    const account = accountId === undefined ? {} : { accountId };
    if (error) {
      // request.log binds reqId itself.
      const { method, url } = request;
      request.log.error(
        { method, url, statusCode: reply.statusCode, responseTimeMs, ...account, err: error },
        'request errored',
      );
      return;
    }
    // The root logger does not bind reqId, so the line names it.
    const fields: AccessFields = {
      reqId: request.id,
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTimeMs,
      ...account,
    };
    const root = request.server.log;
    const internals = root as unknown as PinoInternals;
    const destination = internals[pino.symbols.streamSym];
    const text = destination && internals.isLevelEnabled?.('info') ? accessLine(root, fields) : undefined;
    if (destination && text) destination.write(text);
    else root.info(fields, 'request completed');
  }
}
