import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { buildHealthApp } from '../../src/edges/api/health-routes.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { assertRawError, rawRequestText as request } from '../support/raw-edge.js';
import { portOf, rawExchange } from '../support/raw-http.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

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
      db: t.core.resources.db,
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
