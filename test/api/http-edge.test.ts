import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { buildHealthApp } from '../../src/api/health-routes.js';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { portOf, type RawResponse, rawExchange, rawRequest } from '../support/raw-http.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Upload temp files go to os.tmpdir(): a folder of this test process's own, so the test can see
// that none is left behind without counting other processes' files.
process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'atelier-edge-tmp-'));
const leftoverUploads = () => readdirSync(tmpdir()).filter((name) => name.startsWith('atelier-upload-'));

/** Asserts the error shape on a response read off a raw socket. */
function assertRawError(response: RawResponse, status: number, type: string): string {
  return assertError(
    { statusCode: response.status, headers: response.headers, json: () => response.json },
    status,
    type,
  );
}

const request = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n\r\n${body}`;

describe('HTTP edge: refusals made before any route runs keep the error shape (real socket)', () => {
  let t: TestApp;
  let port: number;
  let apiKey: string;

  before(async () => {
    t = await createTestApp({ listen: true });
    port = portOf(t.baseUrl);
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('a header block over 16 kB is 431 headers_too_large', async () => {
    const response = await rawExchange(
      port,
      request(['GET /healthz HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`]),
    );
    assertRawError(response, 431, 'headers_too_large');
  });

  test('a request line over 16 kB is 431 headers_too_large too', async () => {
    const response = await rawExchange(
      port,
      request([`GET /api/v1/tasks/${'a'.repeat(17_000)} HTTP/1.1`, 'Host: x']),
    );
    assertRawError(response, 431, 'headers_too_large');
  });

  test('a bad %-escape in the path is 400 invalid_request', async () => {
    for (const path of ['/api/v1/tasks/%zz', '/api/v1/tasks/%E0%A4%A', '/v1/tasks/%', '/files/%c0']) {
      const response = await rawExchange(
        port,
        request([`GET ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${apiKey}`]),
      );
      assert.ok([400, 404].includes(response.status), `${path}: ${response.status}`);
      assertRawError(response, response.status, response.status === 400 ? 'invalid_request' : 'not_found');
    }
    const bad = await rawExchange(port, request(['GET /api/v1/tasks/%zz HTTP/1.1', 'Host: x']));
    assertRawError(bad, 400, 'invalid_request');
  });

  test('a path parameter over 100 characters is an unknown id: 404 not_found', async () => {
    for (const length of [101, 1000, 8000]) {
      const response = await rawExchange(
        port,
        request([
          `GET /api/v1/tasks/tsk_${'x'.repeat(length)} HTTP/1.1`,
          'Host: x',
          `Authorization: Bearer ${apiKey}`,
        ]),
      );
      assertRawError(response, 404, 'not_found');
    }
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/v1/tasks/${'y'.repeat(500)}/cancel`,
      headers: bearer(apiKey),
    });
    assertError(cancel, 404, 'not_found');
  });

  test('an unparsable request line or header is 400 invalid_request', async () => {
    const cases = [
      request(['GET /a b HTTP/1.1', 'Host: x']),
      request(['GET /healthz HTTP/1.1', 'Host: x', 'X-Nul: a\u0000b']),
      request(['GET /healthz HTTP/9.9', 'Host: x']),
      request(['G(T /healthz HTTP/1.1', 'Host: x']),
      request(['GET /healthz HTTP/1.1', 'Host: x', 'Bad Header: 1']),
      request(['POST /api/v1/generate HTTP/1.1', 'Host: x', 'Content-Length: 1', 'Content-Length: 2'], 'ab'),
      request(['POST /api/v1/generate HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked'], 'zz\r\n'),
    ];
    for (const bytes of cases) assertRawError(await rawExchange(port, bytes), 400, 'invalid_request');
    // and the server still serves
    assert.equal((await fetch(`${t.baseUrl}/healthz`)).status, 200);
  });

  test('an Expect other than 100-continue is 400 invalid_request; CONNECT is 405 method_not_allowed', async () => {
    const expect = await rawExchange(port, request(['GET /healthz HTTP/1.1', 'Host: x', 'Expect: teapot']));
    assertRawError(expect, 400, 'invalid_request');
    const connect = await rawExchange(port, request(['CONNECT 127.0.0.1:22 HTTP/1.1', 'Host: 127.0.0.1:22']));
    assertRawError(connect, 405, 'method_not_allowed');
  });

  test('two Authorization headers are 401 unauthorized, whichever is valid', async () => {
    for (const pair of [
      [`Bearer ${apiKey}`, 'Bearer atl_someone_else'],
      ['Bearer atl_someone_else', `Bearer ${apiKey}`],
      [`Bearer ${apiKey}`, `Bearer ${apiKey}`],
    ]) {
      const response = await rawExchange(
        port,
        request([
          'GET /api/v1/user/status HTTP/1.1',
          'Host: x',
          ...pair.map((value) => `Authorization: ${value}`),
        ]),
      );
      const message = assertRawError(response, 401, 'unauthorized');
      assert.match(message, /one Authorization header/i);
    }
    const single = await rawExchange(
      port,
      request([
        'GET /api/v1/user/status HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${apiKey}`,
        'Connection: close',
      ]),
    );
    assert.equal(single.status, 200);
  });
});

describe('HTTP edge: protocol edges a fuzzer found (issue 25, items 20 and 21)', () => {
  let t: TestApp;
  let port: number;
  let apiKey: string;

  before(async () => {
    t = await createTestApp({ listen: true, startEngine: false });
    port = portOf(t.baseUrl);
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('two Idempotency-Key headers are 400 invalid_request, and nothing is submitted', async () => {
    const body = JSON.stringify({ prompt: 'two keys', imageSize: '1K' });
    for (const keys of [
      ['a', 'b'],
      ['same', 'same'],
    ]) {
      const response = await rawExchange(
        port,
        request(
          [
            'POST /api/v1/generate HTTP/1.1',
            'Host: x',
            `Authorization: Bearer ${apiKey}`,
            'Content-Type: application/json',
            `Content-Length: ${Buffer.byteLength(body)}`,
            ...keys.map((key) => `Idempotency-Key: ${key}`),
          ],
          body,
        ),
      );
      assert.match(assertRawError(response, 400, 'invalid_request'), /exactly one Idempotency-Key/);
    }
    const history = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(history.json().total, 0);
  });

  test('QUERY, which no route takes, is 404 not_found in our wording, with or without a Content-Type', async () => {
    for (const contentType of [[], ['Content-Type: application/json', 'Content-Length: 2']]) {
      for (const path of ['/api/v1/user/status', '/nowhere']) {
        const response = await rawExchange(
          port,
          request(
            [`QUERY ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${apiKey}`, ...contentType],
            contentType.length > 0 ? '{}' : '',
          ),
        );
        assert.equal(assertRawError(response, 404, 'not_found'), `No route for QUERY ${path}`);
      }
    }
  });

  test('wait=, page= and limit= given empty are 400 invalid_request naming the parameter', async () => {
    for (const [url, name] of [
      ['/api/v1/tasks/tsk_x?wait=', 'wait'],
      ['/api/v1/tasks?ids=tsk_x&wait=', 'wait'],
      ['/api/v1/history?page=', 'page'],
      ['/api/v1/history?limit=', 'limit'],
      ['/api/v1/assets?limit=', 'limit'],
      ['/api/v1/webhooks/deliveries?page=', 'page'],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(apiKey) });
      assert.equal(assertError(response, 400, 'invalid_request'), `${name} must be an integer`, url);
    }
  });
});

describe("HTTP edge: a worker-only node's /healthz app answers in the same shape", () => {
  test('bad request line, oversized headers, unknown route', async () => {
    const t = await createTestApp({ startEngine: false });
    const health = await buildHealthApp({
      db: t.core.db,
      roles: ['worker'],
      logger: t.core.logger as FastifyBaseLogger,
      metrics: t.core.metrics,
    });
    await health.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = health.server.address() as AddressInfo;
      assertRawError(
        await rawExchange(port, request(['GET /a b HTTP/1.1', 'Host: x'])),
        400,
        'invalid_request',
      );
      assertRawError(
        await rawExchange(
          port,
          request(['GET /healthz HTTP/1.1', 'Host: x', `X-Big: ${'b'.repeat(20_000)}`]),
        ),
        431,
        'headers_too_large',
      );
      assertRawError(
        await rawExchange(port, request(['GET /%zz HTTP/1.1', 'Host: x'])),
        400,
        'invalid_request',
      );
      const healthz = await rawExchange(
        port,
        request(['GET /healthz HTTP/1.1', 'Host: x', 'Connection: close']),
      );
      assert.equal(healthz.status, 200);
    } finally {
      await health.close();
      await t.close();
    }
  });
});

describe('HTTP edge: stalled and trickling bodies are cut off', () => {
  let t: TestApp;
  let port: number;
  let apiKey: string;

  before(async () => {
    // The engine stays off: tasks stay queued, so a long-poll waits its whole time.
    t = await createTestApp({
      listen: true,
      startEngine: false,
      env: {
        ATELIER_BODY_IDLE_TIMEOUT_MS: '1000',
        ATELIER_BODY_DEADLINE_MS: '2500',
        ATELIER_UPLOAD_DEADLINE_MS: '2500',
      },
    });
    port = portOf(t.baseUrl);
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  const head = (path: string, contentType: string, length: number) =>
    request([
      `POST ${path} HTTP/1.1`,
      'Host: x',
      `Authorization: Bearer ${apiKey}`,
      `Content-Type: ${contentType}`,
      `Content-Length: ${length}`,
    ]);

  test('a JSON body that declares 1,000 bytes and sends 95 is 408 request_timeout; the socket is closed', async () => {
    const exchange = rawRequest(
      port,
      head('/api/v1/generate', 'application/json', 1000) + '{"prompt":"'.padEnd(95, 'a'),
    );
    const response = await exchange.response;
    assertRawError(response, 408, 'request_timeout');
    assert.equal(response.headers.connection, 'close');
    await exchange.closed;
  });

  test('a raw image upload that stalls is 408 and leaves no temp file', async () => {
    const png = await makePng(32, 32);
    const exchange = rawRequest(
      port,
      Buffer.concat([Buffer.from(head('/api/v1/upload', 'image/png', png.length + 1000)), png]),
    );
    assertRawError(await exchange.response, 408, 'request_timeout');
    await exchange.closed;
    assert.deepEqual(leftoverUploads(), []);
  });

  test('a multipart upload that stalls inside its file part is 408 and leaves no temp file', async () => {
    const png = await makePng(32, 32);
    const boundary = 'edge-boundary';
    const start = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const exchange = rawRequest(
      port,
      Buffer.concat([
        Buffer.from(
          head('/v1/upload', `multipart/form-data; boundary=${boundary}`, start.length + png.length + 500),
        ),
        start,
        png,
      ]),
    );
    assertRawError(await exchange.response, 408, 'request_timeout');
    await exchange.closed;
    assert.deepEqual(leftoverUploads(), []);
  });

  test('a body trickling one byte at a time is cut off by the route deadline', async () => {
    const exchange = rawRequest(port, head('/api/v1/upload', 'image/png', 100_000));
    let sent = 0;
    const trickle = setInterval(() => {
      if (!exchange.socket.destroyed) exchange.socket.write(Buffer.from([sent++ % 256]));
    }, 100);
    try {
      assertRawError(await exchange.response, 408, 'request_timeout');
      await exchange.closed;
    } finally {
      clearInterval(trickle);
    }
    assert.ok(sent > 0);
    assert.deepEqual(leftoverUploads(), []);
  });

  test('a header block that never ends is 408 request_timeout', async () => {
    const exchange = rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1');
    assertRawError(await exchange.response, 408, 'request_timeout');
    await exchange.closed;
  });

  test('a body that arrives in pieces is not cut off, nor is a handler slower than the idle limit', async () => {
    const body = JSON.stringify({ prompt: 'edge' });
    const post = rawRequest(
      port,
      head('/api/v1/generate', 'application/json', body.length) + body.slice(0, 5),
    );
    setTimeout(() => post.socket.write(body.slice(5)), 50);
    const created = await post.response;
    assert.equal(created.status, 200, created.body);
    post.socket.destroy();
    const [taskId] = (created.json as { task_ids: string[] }).task_ids;
    // A long-poll (2 s, twice the idle limit) whose request carried a body: once the body is in, the
    // silence while the handler waits is not the client's.
    const poll = rawRequest(
      port,
      request(
        [
          `GET /api/v1/tasks/${taskId}?wait=2 HTTP/1.1`,
          'Host: x',
          `Authorization: Bearer ${apiKey}`,
          'Content-Length: 4',
        ],
        'ab',
      ),
    );
    setTimeout(() => poll.socket.write('cd'), 50);
    const answered = await poll.response;
    assert.equal(answered.status, 200, answered.body);
    assert.equal((answered.json as { status: string }).status, 'queued');
    poll.socket.destroy();
  });
});

describe('HTTP edge: malformed bodies are client errors', () => {
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    t = await createTestApp();
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('multipart without a boundary is 400 invalid_request', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'multipart/form-data' },
      payload: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc\r\n--x--\r\n',
    });
    assertError(response, 400, 'invalid_request');
  });

  test('a truncated multipart body is 400 invalid_request', async () => {
    const png = await makePng(16, 16);
    const boundary = 'cut';
    for (const payload of [
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`),
        png,
      ]),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-da`),
      Buffer.from(`--${boundary}\r\n`),
      Buffer.from('garbage without any boundary'),
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(apiKey), 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      });
      assertError(response, 400, 'invalid_request');
    }
    assert.deepEqual(leftoverUploads(), []);
  });

  test('deeply nested JSON with an Idempotency-Key is fingerprinted (no stack overflow)', async () => {
    const depth = 150_000;
    const deepArray = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deepObject = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    for (const [i, payload] of [
      deepArray,
      `{"prompt":"deep","extra":${deepArray}}`,
      `{"prompt":"deep","extra":${deepObject}}`,
    ].entries()) {
      assert.ok(payload.length < 1024 * 1024);
      const send = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/generate',
          headers: { ...bearer(apiKey), 'content-type': 'application/json', 'idempotency-key': `deep-${i}` },
          payload,
        });
      const first = await send();
      assert.ok(first.statusCode < 500, `${i}: ${first.statusCode} ${first.body.slice(0, 200)}`);
      if (first.statusCode >= 400) assertError(first, first.statusCode, first.json().error.type);
      const again = await send();
      assert.equal(again.statusCode, first.statusCode);
      assert.equal(again.body, first.body, 'the same key and body replay the first answer');
    }
  });

  test('history: any integer page ≥ 1 is valid (past the end is an empty page); others are 400', async () => {
    for (const page of ['1000000000', '99999999999999999999', '0001']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/history?page=${page}`,
        headers: bearer(apiKey),
      });
      assert.equal(response.statusCode, 200, `${page}: ${response.body}`);
      const body = response.json();
      assert.equal(body.page, Math.min(Number(page), Number.MAX_SAFE_INTEGER));
      if (page !== '0001') assert.deepEqual(body.items, []);
    }
    for (const page of ['0', '-1', '1.5', 'abc', '1e3', ' 1']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/history?page=${encodeURIComponent(page)}`,
        headers: bearer(apiKey),
      });
      assertError(response, 400, 'invalid_request');
    }
    for (const url of ['/api/v1/assets', '/api/v1/webhooks/deliveries']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `${url}?page=123456789012345`,
        headers: bearer(apiKey),
      });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      assert.deepEqual(response.json().items, []);
    }
  });
});
