// Test-only helpers: loopback servers that stand in for remote hosts, a scripted resolver, and a
// spy on every TCP connection the process opens. Nothing here touches a non-loopback address.
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer as createNetServer, type Server, Socket } from 'node:net';
import type { ResolvedAddress } from '../../../src/infra/outbound/address-policy.js';

export interface LoopbackServer {
  readonly port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<LoopbackServer> {
  let connections = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  return {
    port: address.port,
    get connections() {
      return connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP server on 127.0.0.1 with an ephemeral port. */
export function startHttpServer(handler: RequestListener): Promise<LoopbackServer> {
  return listen(createHttpServer(handler));
}

/** A bare TCP server on 127.0.0.1, for responses no well-behaved HTTP server would send. */
export function startRawServer(onSocket: (socket: Socket) => void): Promise<LoopbackServer> {
  return listen(createNetServer(onSocket));
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = await startRawServer((socket) => socket.destroy());
  const { port } = server;
  await server.close();
  return port;
}

/**
 * A scripted resolver: each host name maps to a list of answer sets, returned one per call (the
 * last one repeats), so a test can answer "public, then private" like a rebinding DNS server.
 */
export function scriptedResolver(script: Record<string, ResolvedAddress[][]>) {
  const calls: string[] = [];
  async function lookup(hostname: string): Promise<ResolvedAddress[]> {
    const seen = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const answers = script[hostname];
    if (answers === undefined || answers.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return answers[Math.min(seen, answers.length - 1)] ?? [];
  }
  return { lookup, calls };
}

/** Shorthand for one IPv4 or IPv6 answer. */
export function answer(address: string): ResolvedAddress {
  return { address, family: address.includes(':') ? 6 : 4 };
}

/**
 * Records the destination of every TCP connection opened in this process, by wrapping
 * net.Socket.prototype.connect (the one door both net.connect and tls.connect go through).
 */
export function spyOnSocketConnect() {
  const destinations: Array<{ host: string; port: number }> = [];
  const original = Socket.prototype.connect;
  // biome-ignore lint/suspicious/noExplicitAny: connect has many overloads; the spy only reads them.
  Socket.prototype.connect = function (this: Socket, ...args: any[]) {
    const [first, second] = args;
    // net.connect() hands over its normalised [options, callback] pair as one array argument.
    const options = Array.isArray(first) ? first[0] : first;
    if (typeof options === 'object' && options !== null) {
      const { host, port } = options as { host?: string; port?: number | string };
      if (port !== undefined) destinations.push({ host: host ?? 'localhost', port: Number(port) });
    } else if (typeof first === 'number' || typeof first === 'string') {
      if (typeof second === 'string') destinations.push({ host: second, port: Number(first) });
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    destinations,
    restore() {
      Socket.prototype.connect = original;
    },
  };
}
