import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('framework-level errors keep the error shape', () => {
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    t = await createTestApp();
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('GET /healthz answers 200', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
  });

  test('unknown routes are 404 not_found, inside and outside /api/v1', async () => {
    assertError(await t.app.inject({ method: 'GET', url: '/nothing-here' }), 404, 'not_found');
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/nothing', headers: bearer(apiKey) }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({ method: 'DELETE', url: '/api/v1/generate', headers: bearer(apiKey) }),
      404,
      'not_found',
    );
  });

  test('files: unknown keys and traversal attempts are 404 in the error shape', async () => {
    for (const url of [
      '/files/results/none.png',
      '/files/../atelier.db',
      '/files/%2e%2e/master.key',
      '/files/master.key',
      '/files/',
    ]) {
      assertError(await t.app.inject({ method: 'GET', url }), 404, 'not_found');
    }
  });

  test('files: ETag and long cache headers; If-None-Match gives 304', async () => {
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await (await import('../support/api-helpers.js')).makePng(8, 8),
    });
    const path = new URL(upload.json().url).pathname;
    const first = await t.app.inject({ method: 'GET', url: path });
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['content-type'], 'image/png');
    assert.equal(Number(first.headers['content-length']), upload.json().bytes);
    assert.match(String(first.headers['cache-control']), /max-age=31536000/);
    const etag = String(first.headers.etag);
    assert.ok(etag.length > 2);
    const second = await t.app.inject({ method: 'GET', url: path, headers: { 'if-none-match': etag } });
    assert.equal(second.statusCode, 304);
  });

  test('every response carries a request id', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(response.headers['x-request-id']), /^req_/);
  });
});

describe('an unexpected failure', () => {
  test('is 500 internal_error with the request id and no internals; the process keeps serving', async () => {
    const { createDiskBlobStore } = await import('../../src/infra/blobs/disk-blob-store.js');
    const { tmpdir } = await import('node:os');
    const disk = createDiskBlobStore({ root: tmpdir() });
    const t = await createTestApp({
      overrides: {
        blobs: {
          ...disk,
          open: async () => {
            throw new Error('EIO: secret internal path /var/lib/atelier/blobs');
          },
        },
      },
    });
    try {
      const response = await t.app.inject({ method: 'GET', url: '/files/results/x.png' });
      const message = assertError(response, 500, 'internal_error');
      assert.doesNotMatch(message, /EIO|\/var\/lib/);
      assert.match(message, new RegExp(String(response.headers['x-request-id'])));
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
