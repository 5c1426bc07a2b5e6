import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { assertRawError, rawRequestText as request } from '../support/raw-edge.js';
import { portOf, rawRequest } from '../support/raw-http.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Upload temp files go to os.tmpdir(): a folder of this test process's own, so the test can see
// that none is left behind without counting other processes' files.
process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'atelier-edge-tmp-'));
const leftoverUploads = () => readdirSync(tmpdir()).filter((name) => name.startsWith('atelier-upload-'));

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
