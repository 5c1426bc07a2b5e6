import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// A reference image that cannot be fetched or read keeps the status of the failure (502, 415,
// 400…) and says which reference it was: "imageUrls[1]: …". The core raises domain errors; the
// generate use case renames them for the field, the edge maps them.
describe('generate: a reference that cannot be used is refused for its field', () => {
  let t: TestApp;
  let apiKey: string;
  let origin: Server;
  let originUrl: string;

  before(async () => {
    origin = createServer((req, res) => {
      if (req.url === '/page.html') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end('<!doctype html><title>not an image</title>');
        return;
      }
      res.writeHead(404);
      res.end('nope');
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    originUrl = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port}` } });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => origin.close(resolve));
  });

  const edit = (imageUrl: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'edit it', mode: 'edit', imageSize: '1K', imageUrls: [imageUrl] },
    });

  test('one of our own file URLs that is not stored is 400, before anything is fetched', async () => {
    const response = await edit(`${t.baseUrl}/files/uploads/missing.png`);
    assert.equal(assertError(response, 400, 'invalid_request'), 'imageUrls[0]: no such file on this server');
  });

  test('a reference answering 404 is 502 fetch_failed', async () => {
    const response = await edit(`${originUrl}/gone.png`);
    assert.equal(assertError(response, 502, 'fetch_failed'), 'imageUrls[0]: source_url answered HTTP 404');
  });

  test('a reference that is not an image is 415', async () => {
    const response = await edit(`${originUrl}/page.html`);
    assert.match(
      assertError(response, 415, 'unsupported_media_type'),
      /^imageUrls\[0\]: The file is not a PNG/,
    );
  });

  test('a reference on a private address is 400', async () => {
    const response = await edit('http://10.0.0.1/x.png');
    assert.equal(
      assertError(response, 400, 'invalid_request'),
      'imageUrls[0]: source_url does not point to a public address; to allow it in development, add "10.0.0.1:80" to ATELIER_UPLOAD_ALLOWED_HOSTS',
    );
  });
});
