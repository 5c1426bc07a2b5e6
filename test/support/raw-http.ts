import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * Parses the first HTTP/1.1 response in `bytes` (Content-Length or chunked body); undefined if
 * incomplete. With `wantBody` false for its status, the head is enough (HEAD, event streams).
 */
export function parseRawResponse(
  bytes: Buffer,
  closed: boolean,
  wantBody: (status: number) => boolean = () => true,
): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = bytes.subarray(end + 4);
  let body: Buffer;
  if (!wantBody(status)) {
    body = Buffer.alloc(0);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    body = rest.subarray(0, length);
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString(), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(chunks);
  } else if (closed) {
    body = rest;
  } else {
    return undefined;
  }
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body: text, json };
}

export interface RawExchange {
  socket: Socket;
  /** Resolves with the first response, or rejects if the connection ends before a whole one. */
  response: Promise<RawResponse>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
}

/**
 * Opens a plain TCP connection to `port` and writes `bytes` as given — whatever a well-behaved
 * HTTP client would refuse to send (raw spaces, NUL, duplicate headers, a body that stops short).
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer = '',
  wantBody?: (status: number) => boolean,
): RawExchange {
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  let settle: { resolve(r: RawResponse): void; reject(e: Error): void } | undefined;
  const response = new Promise<RawResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const check = (isClosed: boolean) => {
    const parsed = parseRawResponse(Buffer.concat(received), isClosed, wantBody);
    if (parsed) settle?.resolve(parsed);
    else if (isClosed) {
      settle?.reject(
        new Error(`connection closed without a response: ${Buffer.concat(received).toString()}`),
      );
    }
  };
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    check(false);
  });
  // A reset after the answer was read is fine; one before it fails the exchange.
  socket.on('error', () => check(true));
  socket.on('close', () => check(true));
  if (bytes.length > 0) socket.write(bytes);
  return { socket, response, closed };
}

/** Writes `bytes` and resolves with the response. */
export function rawExchange(port: number, bytes: string | Buffer): Promise<RawResponse> {
  const exchange = rawRequest(port, bytes);
  return exchange.response.finally(() => exchange.socket.destroy());
}

/** The port of a listening test app. */
export const portOf = (baseUrl: string) => Number(new URL(baseUrl).port);
