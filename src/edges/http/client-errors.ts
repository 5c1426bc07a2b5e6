import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorType, errorBody, errorStatus } from './errors.js';

// node:http through getBuiltinModule, not an `import`: the ES module view of node:http reads every
// export at once, its lazy WebSocket getters too, which loads Node's bundled undici (70–100 ms of a
// start). Fastify reaches node:http through `require`, which reads nothing more.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Bytes of request line plus headers Node's parser accepts (its default); more is 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** What the caller is told about a request Node's HTTP parser refused. */
function classifyParserError(code: string | undefined): { type: ErrorType; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        type: 'headers_too_large',
        message: `Request line and headers exceed ${MAX_HEADER_BYTES / 1024} kB`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { type: 'request_timeout', message: 'The request was not received in time' };
    default:
      return { type: 'invalid_request', message: 'Malformed HTTP request' };
  }
}

/** The raw HTTP/1.1 bytes of an error response that closes the connection. */
export function rawErrorResponse(type: ErrorType, message: string): string {
  const status = errorStatus[type];
  const body = JSON.stringify(errorBody(type, message));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Node's `clientError` path (Fastify's `clientErrorHandler`): a request the HTTP parser refused
 * (bad request line, NUL in a header, header block over the limit, headers or body not received in
 * time) still gets `{ error: { type, message } }`. Like Node's own handler, nothing is written
 * once a response on this socket has started, which would corrupt it.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { type, message } = classifyParserError(error.code);
    // end, then destroy once written: destroying at once can lose the answer to a reset.
    socket.end(rawErrorResponse(type, message), () => socket.destroy());
    return;
  }
  socket.destroy();
}

/**
 * Requests Node's server answers by itself, outside the error shape or not at all: an `Expect`
 * other than 100-continue (Node: a bare 417) and CONNECT (Node: the socket is closed unanswered).
 */
export function answerUnsupportedHttpFeatures(server: Server): void {
  server.on('checkExpectation', (_request, response) => {
    const body = JSON.stringify(
      errorBody('invalid_request', 'Unsupported Expect header: only "100-continue" is understood'),
    );
    response.writeHead(errorStatus.invalid_request, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });
  server.on('connect', (_request, socket: Socket) => {
    socket.end(rawErrorResponse('method_not_allowed', 'CONNECT is not supported'), () => socket.destroy());
  });
}

/**
 * Fastify's `frameworkErrors` (routing-stage failures that never reach the error handler): a bad
 * %-escape in the path, a path parameter over the router's `maxParamLength`.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { type, message } = frameworkErrorAnswer(error.code, request.method);
  return reply.code(errorStatus[type]).send(errorBody(type, message));
}

function frameworkErrorAnswer(code: string, method: string): { type: ErrorType; message: string } {
  switch (code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { type: 'not_found', message: `No route for ${method} (a path parameter is too long)` };
    case 'FST_ERR_BAD_URL':
      return { type: 'invalid_request', message: 'The request path is not valid (a bad %-escape)' };
    default:
      return { type: 'invalid_request', message: 'The request could not be routed' };
  }
}
