/**
 * The loopback HTTP server under every fake upstream: port 0 on 127.0.0.1, each request recorded
 * with its raw body, and a `hang` answer that accepts a request and never responds (for deadline
 * tests). `close()` also drops hung and keep-alive sockets so tests end promptly.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** When the whole request had arrived (epoch ms). */
  at: number;
  /** The connection (a fake that "goes away" destroys it without answering). */
  socket?: IncomingMessage['socket'];
}

export type FakeAnswer =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; raw: string | Buffer; contentType?: string; headers?: Record<string, string> }
  | { hang: true };

export interface FakeHttpServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a loopback server that answers each request with `handle`. */
export async function startFakeHttpServer(
  handle: (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
      at: Date.now(),
      socket: req.socket,
    };
    requests.push(recorded);
    let answer: FakeAnswer;
    try {
      answer = await handle(recorded);
    } catch (error) {
      answer = { status: 599, raw: `fake server bug: ${(error as Error).stack}` };
    }
    if ('hang' in answer) return;
    const headers = { ...(answer.headers ?? {}) };
    if ('json' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(answer.json));
    } else {
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json', ...headers });
      res.end(answer.raw);
    }
  });
  // Idle keep-alive sockets kept a minute (Node's default is 5 s): that timer runs on real time, and
  // under virtual time on a loaded machine a socket could sit idle past 5 s real between two calls,
  // so the server would close it just as the client reused it — a retryable failure no upstream
  // caused (suspected in capacity-sequence's rare "attempt spent"). `close()` drops them anyway.
  server.keepAliveTimeout = 60_000;
  // A deep accept queue, as a real upstream's front has: a burst of a thousand connections (the
  // capacity bench) would overflow Node's default of 511 and wait out the kernel's 1 s SYN retry.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A solid-colour PNG, for fixtures and fake results. */
export function solidPng(width: number, height: number, color = '#3366cc'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

/** A PNG of random noise: compresses badly, so it is large for its size. */
export function noisePng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let state = 12345;
  for (let i = 0; i < pixels.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    pixels[i] = state >>> 24;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A GIF, a type the upstreams do not take directly. */
export function solidGif(width: number, height: number, color = '#cc3333'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .gif()
    .toBuffer();
}

/** Small result dimensions for an aspect `W:H` (fake upstreams need not render full size). */
export function smallSizeFor(aspect: string): { width: number; height: number } {
  const [w, h] = aspect.split(':').map(Number);
  if (!w || !h) return { width: 64, height: 64 };
  return w >= h
    ? { width: 64, height: Math.max(8, Math.round((64 * h) / w)) }
    : { width: Math.max(8, Math.round((64 * w) / h)), height: 64 };
}
