// Test-only: the stand-ins of the hostile corpus for the outbound fetcher. Every "remote" host is a
// loopback server standing in for a public address: the scripted resolver answers with
// documentation-range public addresses, and the test-only connectTarget hook routes each vetted
// address to its stand-in. Any address the fetcher should never dial is routed to a trap server,
// which must never see a connection (checked after every test by `registerStandIns`).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { DomainError, type DomainOutcome } from '../../../src/base/domain/errors.js';
import { createSafeFetcher, type SafeFetchOptions } from '../../../src/infra/outbound/safe-fetcher.js';
import {
  answer,
  closedPort,
  type LoopbackServer,
  scriptedResolver,
  spyOnSocketConnect,
  startHttpServer,
  startRawServer,
} from './loopback.js';

/** How uploads name the URL: the subject every download of the corpus is made under. */
export const SOURCE = { subject: 'source_url' } as const;

export const MAX_BYTES = 256 * 1024;
export const PUBLIC_V4 = '93.184.216.34';
export const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';
const RAW_V4 = '93.184.216.35'; // a server speaking broken HTTP
const SILENT_V4 = '93.184.216.36'; // accepts TCP, never says a word
const CLOSED_V4 = '93.184.216.37'; // nothing listening

const RESOLVER_SCRIPT = {
  'img.example.test': [[answer(PUBLIC_V4)]],
  'v6.example.test': [[answer(PUBLIC_V6)]],
  'raw.example.test': [[answer(RAW_V4)]],
  'silent.example.test': [[answer(SILENT_V4)]],
  'closed.example.test': [[answer(CLOSED_V4)]],
  'internal.example.test': [[answer('10.0.0.5')]],
  'loopback.example.test': [[answer('127.0.0.1')]],
  'metadata.example.test': [[answer('169.254.169.254')]],
  'cgnat.example.test': [[answer('100.64.1.1')]],
  'mixed.example.test': [[answer(PUBLIC_V4), answer('127.0.0.1')]],
  'mixed-v6.example.test': [[answer(PUBLIC_V4), answer('fd00::1')]],
  'mapped.example.test': [[answer('::ffff:127.0.0.1')]],
  'nat64.example.test': [[answer('64:ff9b::a9fe:a9fe')]],
  'ula.example.test': [[answer('fd12:3456::1')]],
  'rebind.example.test': [[answer(PUBLIC_V4)], [answer('127.0.0.1')]],
  'empty.example.test': [[]],
};

export let web: LoopbackServer;
export let raw: LoopbackServer;
export let silent: LoopbackServer;
export let trap: LoopbackServer;
export let closed: number;
export let tempDir: string;
export let spy: ReturnType<typeof spyOnSocketConnect>;
export let fixtures: Record<string, Buffer>;

export function route(address: string, port: number): { host: string; port: number } {
  if ((address === PUBLIC_V4 || address === PUBLIC_V6) && port === 80)
    return { host: '127.0.0.1', port: web.port };
  if (address === RAW_V4 && port === 80) return { host: '127.0.0.1', port: raw.port };
  if (address === SILENT_V4) return { host: '127.0.0.1', port: silent.port };
  if (address === CLOSED_V4) return { host: '127.0.0.1', port: closed };
  // Anything else is a bug in the fetcher's policy; the trap counts it.
  return { host: '127.0.0.1', port: trap.port };
}

/** A fetcher wired to the stand-ins, with a fresh resolver and a record of vetted connections. */
export function setup(overrides: Partial<SafeFetchOptions> = {}) {
  const resolver = scriptedResolver(RESOLVER_SCRIPT);
  const connects: Array<{ address: string; port: number }> = [];
  const fetcher = createSafeFetcher({
    maxBytes: MAX_BYTES,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 10_000,
    tempDir,
    lookup: resolver.lookup,
    onConnect: (address, port) => connects.push({ address, port }),
    connectTarget: route,
    ...overrides,
  });
  return { fetcher, resolver, connects };
}

/** An assert.rejects validator: a domain error of that outcome, its message matching `pattern`. */
export function rejectsWith(outcome: DomainOutcome, pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof DomainError, `expected a DomainError, got ${String(err)}`);
    assert.equal(err.outcome, outcome, `${err.outcome}: ${err.message}`);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

async function webHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://stand-in');
  const path = url.pathname;
  const fixture = fixtures[path.slice(1)];
  if (fixture) {
    res.writeHead(200, { 'content-type': path.endsWith('.html') ? 'image/png' : 'application/octet-stream' });
    res.end(fixture);
    return;
  }
  if (path === '/redirect') {
    res.writeHead(Number(url.searchParams.get('status') ?? 302), {
      location: url.searchParams.get('to') ?? '/',
    });
    res.end();
    return;
  }
  const chain = /^\/chain\/(\d+)$/.exec(path);
  if (chain) {
    const left = Number(chain[1]);
    if (left === 0) {
      res.end(fixtures['image.png']);
    } else {
      res.writeHead(302, { location: `/chain/${left - 1}` });
      res.end();
    }
    return;
  }
  const chunked = /^\/chunked\/(\d+)$/.exec(path);
  if (chunked) {
    let left = Number(chunked[1]);
    res.writeHead(200, { 'content-type': 'image/png' }); // no length: chunked encoding
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const size = Math.min(left, 16 * 1024);
        left -= size;
        if (!res.write(Buffer.alloc(size, 1))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
    return;
  }
  const exact = /^\/exact\/(\d+)$/.exec(path);
  if (exact) {
    const body = Buffer.alloc(Number(exact[1]), 2);
    res.writeHead(200, { 'content-length': body.length });
    res.end(body);
    return;
  }
  switch (path) {
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    case '/no-location':
      res.writeHead(302);
      res.end();
      return;
    case '/declared-huge':
      // Declares one byte over the cap, sends a little, then stalls: only a fetcher that
      // refuses from the header alone answers quickly.
      res.writeHead(200, { 'content-length': MAX_BYTES + 1 });
      res.write(Buffer.alloc(10));
      return;
    case '/gzip-bomb':
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(fixtures.gzipBomb);
      return;
    case '/br-bomb':
      res.writeHead(200, { 'content-encoding': 'br' });
      res.end(fixtures.brBomb);
      return;
    case '/gzip-image':
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'image/png' });
      res.end(gzipSync(fixtures['image.png'] as Buffer));
      return;
    case '/bad-gzip':
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all'));
      return;
    case '/trickle': {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write(Buffer.from([0])), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/hang':
      return; // never answers
    default: {
      const status = /^\/status\/(\d+)$/.exec(path);
      res.writeHead(status ? Number(status[1]) : 404);
      res.end('nope');
    }
  }
}

/** Raw HTTP responses keyed by request path, for framing no real server library would produce. */
const RAW_RESPONSES: Record<string, () => Buffer[]> = {
  // Says 100 bytes, then keeps going for 2 MB.
  '/understated': () => [
    Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n'),
    Buffer.alloc(2 * 1024 * 1024, 3),
  ],
  // Says 5000 bytes, sends 100, hangs up.
  '/overstated': () => [Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'), Buffer.alloc(100, 4)],
};

/**
 * Starts the stand-ins before the calling test file's tests and checks after each test that no
 * socket went anywhere but to a stand-in and that no temp file was left. `extraFixtures` are
 * served by path (`/name`) besides `image.png` (any bytes: the fetcher does not judge content).
 */
export function registerStandIns(
  extraFixtures: () => Promise<Record<string, Buffer>> = async () => ({}),
): void {
  before(async () => {
    fixtures = {
      'image.png': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) & 0xff)),
      gzipBomb: gzipSync(Buffer.alloc(MAX_BYTES * 64)),
      brBomb: brotliCompressSync(Buffer.alloc(MAX_BYTES * 64)),
      ...(await extraFixtures()),
    };
    web = await startHttpServer((req, res) => void webHandler(req, res));
    raw = await startRawServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', (data) => {
        const path = data.toString('latin1').split(' ')[1] ?? '';
        const parts = RAW_RESPONSES[path]?.() ?? [
          Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'),
        ];
        for (const part of parts) socket.write(part);
        socket.end();
      });
    });
    silent = await startRawServer((socket) => socket.on('error', () => {}));
    trap = await startRawServer((socket) => socket.destroy());
    closed = await closedPort();
  });

  after(async () => {
    await Promise.all([web.close(), raw.close(), silent.close(), trap.close()]);
  });

  beforeEach(async () => {
    tempDir = await mkdtemp(join(tmpdir(), 'atelier-fetch-test-'));
    spy = spyOnSocketConnect();
  });

  afterEach(async () => {
    spy.restore();
    // No TCP connection ever reached a blocked address: the trap saw nothing, and every socket the
    // process opened went to one of the stand-ins for a vetted public address.
    assert.equal(trap.connections, 0, 'a connection reached the trap server');
    const standIns = new Set([web.port, raw.port, silent.port, closed]);
    for (const { host, port } of spy.destinations) {
      assert.equal(host, '127.0.0.1');
      assert.ok(standIns.has(port), `socket opened to unexpected port ${port}`);
    }
    // Temp files are always removed (successful tests call cleanup themselves).
    assert.deepEqual(await readdir(tempDir), []);
    await rm(tempDir, { recursive: true, force: true });
  });
}
