// The hostile corpus for the remote fetcher. Every "remote" host is a loopback server standing in
// for a public address: the scripted resolver answers with documentation-range public addresses,
// and the test-only connectTarget hook routes each vetted address to its stand-in. Any address
// the fetcher should never dial is routed to a trap server, which must never see a connection.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ApiError } from '../http/errors.js';
import { inspectImageFile } from '../images/inspect-image.js';
import { bmpOfSize, encodedImage, gifOfSize, pngOfSize } from '../images/testing/image-fixtures.js';
import {
  assertPublicAddress,
  createSafeFetcher,
  parseAllowedHosts,
  type SafeFetchOptions,
} from './safe-fetch.js';
import {
  answer,
  closedPort,
  type LoopbackServer,
  scriptedResolver,
  spyOnSocketConnect,
  startHttpServer,
  startRawServer,
} from './testing/loopback.js';

const MAX_BYTES = 256 * 1024;
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';
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

let web: LoopbackServer;
let raw: LoopbackServer;
let silent: LoopbackServer;
let trap: LoopbackServer;
let closed: number;
let tempDir: string;
let spy: ReturnType<typeof spyOnSocketConnect>;
let fixtures: Record<string, Buffer>;

function route(address: string, port: number): { host: string; port: number } {
  if ((address === PUBLIC_V4 || address === PUBLIC_V6) && port === 80)
    return { host: '127.0.0.1', port: web.port };
  if (address === RAW_V4 && port === 80) return { host: '127.0.0.1', port: raw.port };
  if (address === SILENT_V4) return { host: '127.0.0.1', port: silent.port };
  if (address === CLOSED_V4) return { host: '127.0.0.1', port: closed };
  // Anything else is a bug in the fetcher's policy; the trap counts it.
  return { host: '127.0.0.1', port: trap.port };
}

/** A fetcher wired to the stand-ins, with a fresh resolver and a record of vetted connections. */
function setup(overrides: Partial<SafeFetchOptions> = {}) {
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

function rejectsWith(type: ApiError['type'], pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.type, type, `${err.type}: ${err.message}`);
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

before(async () => {
  const png = await encodedImage('png', 16, 16);
  const jpeg = await encodedImage('jpeg', 160, 120);
  fixtures = {
    'image.png': png,
    'page.html': Buffer.from('<!doctype html><title>x</title><script>alert(1)</script>'),
    'bomb.png': pngOfSize(14_000, 14_000),
    'anim.gif': gifOfSize(5000, 5000, { frames: 5 }),
    'truncated.jpg': jpeg.subarray(0, Math.floor(jpeg.length / 2)),
    'image.bmp': bmpOfSize(12, 9),
    gzipBomb: gzipSync(Buffer.alloc(MAX_BYTES * 64)),
    brBomb: brotliCompressSync(Buffer.alloc(MAX_BYTES * 64)),
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

describe('assertPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '012.0.0.1',
    '0x7f.0.0.1',
    '0',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.0',
    '100.127.255.255',
    '198.18.0.1',
    '198.19.255.255',
    '240.0.0.1',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '::',
    '::1',
    '[::1]',
    '::ffff:a9fe:a9fe',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '::8.8.8.8',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2001::1',
    '2001:db8::1',
    'fc00::1',
    'fd00::1',
    'fe80::1',
    'ff02::1',
    'not-an-address',
    '',
  ];
  for (const address of refused) {
    it(`refuses ${JSON.stringify(address)}`, () => {
      assert.throws(() => assertPublicAddress(address), rejectsWith('invalid_request'));
    });
  }

  it('accepts public unicast addresses, including just outside the blocked ranges', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.254',
      '::ffff:8.8.8.8',
      '2606:4700:4700::1111',
      '[2606:4700:4700::1111]',
      '2a00:1450:4001:80b::200e',
    ]) {
      assert.doesNotThrow(() => assertPublicAddress(address), address);
    }
  });
});

describe('parseAllowedHosts', () => {
  it('parses comma-separated host[:port] entries into canonical form', () => {
    assert.deepEqual(parseAllowedHosts(undefined), []);
    assert.deepEqual(parseAllowedHosts(''), []);
    assert.deepEqual(parseAllowedHosts(' LocalHost:8080 , minio ,[::1]:9000,127.1 ,'), [
      'localhost:8080',
      'minio',
      '[::1]:9000',
      '127.0.0.1',
    ]);
  });

  it('throws on malformed entries, naming them', () => {
    for (const bad of ['host:0', 'host:99999', 'host:abc', 'http://host', 'user@host', 'host/path']) {
      assert.throws(() => parseAllowedHosts(bad), new RegExp(bad.replace(/[/.?]/g, '\\$&')));
    }
  });
});

describe('hostile corpus: literal addresses in source_url (400, no lookup, no connection)', () => {
  const urls = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://012.0.0.1/', // = 10.0.0.1
    'http://0x7f.0.0.1/',
    'http://127.000.000.001/',
    'http://0/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://224.0.0.251/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001::1]/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'https://127.0.0.1/',
    'https://[::ffff:169.254.169.254]/',
  ];
  for (const url of urls) {
    it(`refuses ${url}`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(
        fetcher.fetchToFile(url),
        rejectsWith('invalid_request', /not point to a public address/),
      );
      assert.deepEqual(resolver.calls, [], 'a literal address never goes to the resolver');
      assert.deepEqual(connects, []);
    });
  }
});

describe('hostile corpus: URL policy (400)', () => {
  const cases: Array<[string, RegExp]> = [
    ['ftp://img.example.test/a.png', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['gopher://img.example.test/', /http or https/],
    ['data:image/png;base64,iVBORw0KGgo=', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['ws://img.example.test/', /http or https/],
    ['http://user:secret@img.example.test/image.png', /credentials/],
    ['http://user@img.example.test/image.png', /credentials/],
    ['http://:secret@img.example.test/image.png', /credentials/],
    ['http://img.example.test:8080/image.png', /default port/],
    ['http://img.example.test:443/image.png', /default port/],
    ['https://img.example.test:80/image.png', /default port/],
    ['http://127.0.0.1:6379/', /default port/],
    ['not a url', /valid absolute URL/],
    ['/image.png', /valid absolute URL/],
    ['', /valid absolute URL/],
  ];
  for (const [url, message] of cases) {
    it(`refuses ${JSON.stringify(url)}`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(fetcher.fetchToFile(url), rejectsWith('invalid_request', message));
      assert.deepEqual(resolver.calls, []);
      assert.deepEqual(connects, []);
    });
  }
});

describe('hostile corpus: DNS answers', () => {
  for (const host of [
    'internal.example.test',
    'loopback.example.test',
    'metadata.example.test',
    'cgnat.example.test',
    'mapped.example.test',
    'nat64.example.test',
    'ula.example.test',
  ]) {
    it(`refuses a name resolving to a non-public address (${host})`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(
        fetcher.fetchToFile(`http://${host}/image.png`),
        rejectsWith('invalid_request', /not point to a public address/),
      );
      assert.deepEqual(resolver.calls, [host]);
      assert.deepEqual(connects, []);
    });
  }

  for (const host of ['mixed.example.test', 'mixed-v6.example.test']) {
    it(`refuses mixed public and private answers (${host}) without connecting anywhere`, async () => {
      const { fetcher, connects } = setup();
      await assert.rejects(fetcher.fetchToFile(`http://${host}/image.png`), rejectsWith('invalid_request'));
      assert.deepEqual(connects, []);
    });
  }

  it('survives rebinding: one lookup, and the socket goes only to the vetted address', async () => {
    const { fetcher, resolver, connects } = setup();
    const file = await fetcher.fetchToFile('http://rebind.example.test/image.png');
    try {
      assert.deepEqual(resolver.calls, ['rebind.example.test'], 'exactly one lookup');
      assert.deepEqual(connects, [{ address: PUBLIC_V4, port: 80 }]);
      assert.deepEqual(spy.destinations, [{ host: '127.0.0.1', port: web.port }]);
      assert.deepEqual(await readFile(file.path), fixtures['image.png']);
    } finally {
      await file.cleanup();
    }
  });

  it('fetches over a public IPv6 answer', async () => {
    const { fetcher, connects } = setup();
    const file = await fetcher.fetchToFile('http://v6.example.test/image.png');
    await file.cleanup();
    assert.deepEqual(connects, [{ address: PUBLIC_V6, port: 80 }]);
  });

  it('answers 502 when the name does not resolve or resolves to nothing', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://nxdomain.example.test/'),
      rejectsWith('fetch_failed', /resolved/),
    );
    await assert.rejects(
      fetcher.fetchToFile('http://empty.example.test/'),
      rejectsWith('fetch_failed', /resolved/),
    );
  });

  it('refuses localhost through the real system resolver', async () => {
    const { fetcher } = setup({ lookup: undefined });
    await assert.rejects(
      fetcher.fetchToFile('http://localhost/'),
      rejectsWith('invalid_request', /public address/),
    );
  });
});

describe('hostile corpus: redirects', () => {
  const refusedTargets: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /public address/],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', /public address/],
    ['http://[::ffff:a9fe:a9fe]/', /public address/],
    ['http://2130706433/', /public address/],
    ['https://127.0.0.1/', /public address/],
    ['http://internal.example.test/', /public address/],
    ['http://metadata.example.test/', /public address/],
    ['file:///etc/passwd', /http or https/],
    ['gopher://127.0.0.1:6379/_FLUSHALL', /http or https/],
    ['http://user:pw@img.example.test/image.png', /credentials/],
    [`http://img.example.test:${'8080'}/`, /default port/],
  ];
  for (const [target, message] of refusedTargets) {
    it(`refuses a public host redirecting to ${target}`, async () => {
      const { fetcher, connects } = setup();
      const url = `http://img.example.test/redirect?to=${encodeURIComponent(target)}`;
      await assert.rejects(fetcher.fetchToFile(url), rejectsWith('invalid_request', message));
      assert.deepEqual(
        connects,
        [{ address: PUBLIC_V4, port: 80 }],
        'only the first, public hop was dialled',
      );
    });
  }

  for (const status of [301, 302, 303, 307, 308]) {
    it(`follows a ${status} to a public address, re-resolving the new host`, async () => {
      const { fetcher, resolver } = setup();
      const to = encodeURIComponent('http://v6.example.test/image.png');
      const file = await fetcher.fetchToFile(`http://img.example.test/redirect?status=${status}&to=${to}`);
      await file.cleanup();
      assert.deepEqual(resolver.calls, ['img.example.test', 'v6.example.test']);
    });
  }

  it('follows three redirects and refuses the fourth (502)', async () => {
    const { fetcher, connects } = setup();
    const file = await fetcher.fetchToFile('http://img.example.test/chain/3');
    await file.cleanup();
    assert.equal(connects.length, 4);
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/chain/4'),
      rejectsWith('fetch_failed', /redirect/),
    );
  });

  it('refuses a redirect loop and a redirect without Location (502)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/loop'),
      rejectsWith('fetch_failed', /redirect/),
    );
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/no-location'),
      rejectsWith('fetch_failed'),
    );
  });

  it('lets maxRedirects be lowered', async () => {
    const { fetcher } = setup({ maxRedirects: 0 });
    await assert.rejects(fetcher.fetchToFile('http://img.example.test/chain/1'), rejectsWith('fetch_failed'));
  });
});

describe('hostile corpus: size', () => {
  it('refuses a Content-Length over the cap before reading the body (413)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 20_000 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/declared-huge'),
      rejectsWith('payload_too_large'),
    );
    assert.ok(Date.now() - started < 10_000, 'refused from the header, not after a timeout');
  });

  it('accepts exactly the cap and refuses one byte more without a length (413)', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile(`http://img.example.test/exact/${MAX_BYTES}`);
    assert.equal(file.bytes, MAX_BYTES);
    await file.cleanup();
    await assert.rejects(
      fetcher.fetchToFile(`http://img.example.test/chunked/${MAX_BYTES + 1}`),
      rejectsWith('payload_too_large'),
    );
  });

  it('stops a chunked body with no length far over the cap (413)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile(`http://img.example.test/chunked/${50 * MAX_BYTES}`),
      rejectsWith('payload_too_large'),
    );
  });

  it('counts decoded bytes: a gzip bomb is refused although its wire size is tiny (413)', async () => {
    assert.ok((fixtures.gzipBomb as Buffer).length < MAX_BYTES / 4);
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/gzip-bomb'),
      rejectsWith('payload_too_large'),
    );
  });

  it('counts decoded bytes for brotli too (413)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/br-bomb'),
      rejectsWith('payload_too_large'),
    );
  });

  it('decodes a gzip-encoded image honestly', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile('http://img.example.test/gzip-image');
    try {
      assert.deepEqual(await readFile(file.path), fixtures['image.png']);
      assert.equal(file.bytes, fixtures['image.png']?.length);
    } finally {
      await file.cleanup();
    }
  });

  it('answers 502 for a body that claims gzip but is not', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/bad-gzip'),
      rejectsWith('fetch_failed'),
    );
  });

  it('takes no more than an understated Content-Length', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile('http://raw.example.test/understated');
    try {
      assert.equal(file.bytes, 100);
      assert.equal((await readFile(file.path)).length, 100);
    } finally {
      await file.cleanup();
    }
  });

  it('answers 502 for an overstated Content-Length (the peer hangs up early)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://raw.example.test/overstated'),
      rejectsWith('fetch_failed'),
    );
  });
});

describe('hostile corpus: time and connection failures', () => {
  it('cuts off a server trickling bytes at the total timeout (502)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 400 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/trickle'),
      rejectsWith('fetch_failed', /timed out/),
    );
    assert.ok(Date.now() - started < 8_000);
  });

  it('cuts off a server that never sends headers (502)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 400 });
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/hang'),
      rejectsWith('fetch_failed', /timed out/),
    );
  });

  it('applies the connect timeout to a TLS handshake that never completes (502)', async () => {
    const { fetcher } = setup({ connectTimeoutMs: 300, totalTimeoutMs: 20_000 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('https://silent.example.test/image.png'),
      rejectsWith('fetch_failed', /Could not connect/),
    );
    assert.ok(Date.now() - started < 10_000, 'the connect timeout fired, not the total one');
  });

  it('reports a refused connection and a connect timeout with the same message', async () => {
    const { fetcher } = setup({ connectTimeoutMs: 300 });
    const refused = await fetcher.fetchToFile('http://closed.example.test/').catch((err: unknown) => err);
    const timedOut = await fetcher.fetchToFile('https://silent.example.test/').catch((err: unknown) => err);
    assert.ok(refused instanceof ApiError && timedOut instanceof ApiError);
    assert.deepEqual([refused.type, refused.message], [timedOut.type, timedOut.message]);
    assert.equal(refused.type, 'fetch_failed');
  });

  it('never reveals whether an internal port is open: open and closed read the same', async () => {
    // An internal address with a live server behind it, and one with nothing listening.
    const open = createSafeFetcher({
      tempDir,
      lookup: async () => [answer('10.0.0.7')],
      connectTarget: route,
    });
    const shut = createSafeFetcher({
      tempDir,
      lookup: async () => [answer('10.0.0.8')],
      connectTarget: route,
    });
    const a = await open.fetchToFile('http://intranet.example.test/').catch((err: unknown) => err);
    const b = await shut.fetchToFile('http://intranet.example.test/').catch((err: unknown) => err);
    assert.ok(a instanceof ApiError && b instanceof ApiError);
    assert.deepEqual([a.status, a.type, a.message], [b.status, b.type, b.message]);
    const c = await open.fetchToFile('http://127.0.0.1:22/').catch((err: unknown) => err);
    const d = await open.fetchToFile('http://127.0.0.1:23/').catch((err: unknown) => err);
    assert.ok(c instanceof ApiError && d instanceof ApiError);
    assert.deepEqual([c.status, c.message], [d.status, d.message]);
  });

  it('answers 502 for non-2xx statuses', async () => {
    const { fetcher } = setup();
    for (const status of [404, 403, 500, 304]) {
      await assert.rejects(
        fetcher.fetchToFile(`http://img.example.test/status/${status}`),
        rejectsWith('fetch_failed', new RegExp(String(status))),
      );
    }
  });

  it("stops when the caller's signal aborts", async () => {
    const { fetcher } = setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/trickle', { signal: controller.signal }),
      rejectsWith('fetch_failed', /cancelled/),
    );
  });
});

describe('ATELIER_UPLOAD_ALLOWED_HOSTS', () => {
  it('exempts a named host:port from the address check, for local development', async () => {
    const fetcher = createSafeFetcher({ tempDir, allowedHosts: parseAllowedHosts(`127.0.0.1:${web.port}`) });
    const file = await fetcher.fetchToFile(`http://127.0.0.1:${web.port}/image.png`);
    assert.deepEqual(await readFile(file.path), fixtures['image.png']);
    await file.cleanup();
  });

  it('exempts only what it names: other hosts, other ports, schemes and credentials stay refused', async () => {
    const fetcher = createSafeFetcher({ tempDir, allowedHosts: [`127.0.0.1:${web.port}`, 'minio'] });
    await assert.rejects(
      fetcher.fetchToFile(`http://127.0.0.2:${web.port}/`),
      rejectsWith('invalid_request'),
    );
    await assert.rejects(
      fetcher.fetchToFile(`http://127.0.0.1:${trap.port}/`),
      rejectsWith('invalid_request'),
    );
    await assert.rejects(fetcher.fetchToFile('http://127.0.0.1/'), rejectsWith('invalid_request'));
    await assert.rejects(fetcher.fetchToFile(`ftp://127.0.0.1:${web.port}/`), rejectsWith('invalid_request'));
    await assert.rejects(
      fetcher.fetchToFile(`http://u:p@127.0.0.1:${web.port}/`),
      rejectsWith('invalid_request'),
    );
    await assert.rejects(
      fetcher.fetchToFile('http://minio:9000/'),
      rejectsWith('invalid_request', /default port/),
    );
  });
});

describe('hostile corpus: fetched bytes are judged by content, not by headers', () => {
  async function fetchAndInspect(path: string) {
    const { fetcher } = setup({ maxBytes: 25 * 1024 * 1024 });
    const file = await fetcher.fetchToFile(`http://img.example.test/${path}`);
    try {
      return await inspectImageFile(file.path);
    } finally {
      await file.cleanup();
    }
  }

  it('HTML served as image/png is 415', async () => {
    await assert.rejects(fetchAndInspect('page.html'), rejectsWith('unsupported_media_type'));
  });

  it('a 14000×14000 PNG under 1 MB is 422', async () => {
    await assert.rejects(fetchAndInspect('bomb.png'), rejectsWith('invalid_image', /megapixels/));
  });

  it('an animated GIF whose frames exceed the pixel budget is 422', async () => {
    await assert.rejects(fetchAndInspect('anim.gif'), rejectsWith('invalid_image', /megapixels/));
  });

  it('a truncated JPEG is 422', async () => {
    await assert.rejects(fetchAndInspect('truncated.jpg'), rejectsWith('invalid_image'));
  });

  it('a BMP served as application/octet-stream is read as a BMP', async () => {
    assert.deepEqual(await fetchAndInspect('image.bmp'), {
      contentType: 'image/bmp',
      extension: 'bmp',
      width: 12,
      height: 9,
      frames: 1,
    });
  });
});
