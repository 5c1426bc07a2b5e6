import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('POST /api/v1/upload', () => {
  let t: TestApp;
  let apiKey: string;
  let origin: Server;
  let originUrl: string;
  let png: Buffer;

  before(async () => {
    png = await makePng(120, 80);
    origin = createServer((req, res) => {
      if (req.url === '/cat.png') {
        // The header lies on purpose: the type is decided by magic bytes.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(png);
      } else if (req.url === '/page.html') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end('<html><body>not an image</body></html>');
      } else if (req.url === '/truncated.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(png.subarray(0, Math.floor(png.length / 2)));
      } else {
        res.writeHead(404);
        res.end();
      }
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

  const upload = (payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/v1/upload', headers: bearer(apiKey), payload });

  test('happy: fetches source_url and answers the upload result; the URL serves the same bytes', async () => {
    const response = await upload({ source_url: `${originUrl}/cat.png` });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['bytes', 'content_type', 'filename', 'url']);
    assert.equal(body.content_type, 'image/png');
    assert.equal(body.bytes, png.length);
    assert.match(body.filename, /^[0-9a-f]{64}\.png$/);
    assert.equal(body.url, `${t.baseUrl}/files/uploads/${body.filename}`);
    const file = await t.app.inject({ method: 'GET', url: new URL(body.url).pathname });
    assert.deepEqual(file.rawPayload, png);
    // the same image again: stored once, same URL, one asset
    const again = await upload({ source_url: `${originUrl}/cat.png` });
    assert.equal(again.json().url, body.url);
    const assets = await t.app.inject({
      method: 'GET',
      url: '/api/v1/assets?kind=upload',
      headers: bearer(apiKey),
    });
    assert.equal(assets.json().total, 1);
    assert.equal(assets.json().items[0].width, 120);
  });

  test('direct upload: raw image body and multipart file field', async () => {
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(10, 10),
    });
    assert.equal(raw.statusCode, 200, raw.body);
    assert.equal(raw.json().content_type, 'image/png');

    const boundary = '----atelier';
    const jpeg = await makePng(20, 20).then((b) => b);
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../../etc/x.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      jpeg,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const multi = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    assert.equal(multi.statusCode, 200, multi.body);
    assert.match(multi.json().filename, /^[0-9a-f]{64}\.png$/, 'the filename is ours, never the caller path');
  });

  test('400: missing or bad source_url, non-http scheme, non-public address', async () => {
    assertError(await upload({}), 400, 'invalid_request');
    assertError(await upload({ source_url: 42 }), 400, 'invalid_request');
    assertError(await upload({ source_url: 'not a url' }), 400, 'invalid_request');
    assertError(await upload({ source_url: 'file:///etc/passwd' }), 400, 'invalid_request');
    assertError(
      await upload({ source_url: 'http://169.254.169.254/latest/meta-data/' }),
      400,
      'invalid_request',
    );
    assertError(await upload({ source_url: 'http://10.0.0.1/x.png' }), 400, 'invalid_request');
  });

  test('415 for bytes that are not an image, whatever the Content-Type says', async () => {
    assertError(await upload({ source_url: `${originUrl}/page.html` }), 415, 'unsupported_media_type');
    const raw = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    });
    assertError(raw, 415, 'unsupported_media_type');
    const octets = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'application/octet-stream' },
      payload: '<html></html>',
    });
    assertError(octets, 415, 'unsupported_media_type');
  });

  test('400 for a body whose Content-Type cannot be an upload, saying what to send', async () => {
    // curl --data-binary @cat.png without -H sends application/x-www-form-urlencoded: the image
    // bytes are fine, the header is what is wrong (415 is for bytes that are not an image).
    for (const [contentType, payload] of [
      ['application/x-www-form-urlencoded', png],
      ['text/html', Buffer.from('<html></html>')],
      ['text/plain', Buffer.from(JSON.stringify({ source_url: `${originUrl}/ok.png` }))],
      [undefined, png],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(apiKey), ...(contentType ? { 'content-type': contentType } : {}) },
        payload,
      });
      const message = assertError(response, 400, 'invalid_request');
      assert.match(
        message,
        contentType
          ? new RegExp(
              `^Content-Type ${contentType} is not accepted for an upload: send JSON \\{"source_url"\\} as application/json, multipart/form-data with a "file" field, or the image itself as image/png`,
            )
          : /^Content-Type is missing for an upload: /,
        String(contentType),
      );
      assert.match(
        message,
        /curl: -F file=@cat\.png, or -H 'Content-Type: image\/png' --data-binary @cat\.png/,
      );
    }
  });

  test('422 for a truncated image', async () => {
    assertError(await upload({ source_url: `${originUrl}/truncated.png` }), 422, 'invalid_image');
  });

  test('413 for a direct upload over 25 MB', async () => {
    const big = Buffer.alloc(25 * 1024 * 1024 + 10, 1);
    png.copy(big);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: big,
    });
    assertError(response, 413, 'payload_too_large');
  });

  test('413 over a real socket: the answer reaches a client that is still sending', async () => {
    const served = await createTestApp({ listen: true });
    try {
      const { apiKey: key } = await served.createAccount();
      const big = Buffer.alloc(27 * 1024 * 1024, 1);
      png.copy(big);
      const response = await fetch(`${served.baseUrl}/api/v1/upload`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'image/png' },
        body: big,
      });
      assert.equal(response.status, 413);
      assert.equal(((await response.json()) as { error: { type: string } }).error.type, 'payload_too_large');
    } finally {
      await served.close();
    }
  });

  test('a raw upload over a real socket, in many chunks, is stored byte for byte (and injected bodies are left intact)', async () => {
    const served = await createTestApp({ listen: true });
    try {
      const { apiKey: key } = await served.createAccount();
      // A PNG with a long text chunk after its header: about 3 MB, many socket reads.
      const image = await makePng(64, 64);
      const filler = Buffer.alloc(3 * 1024 * 1024, 7);
      const textChunk = Buffer.concat([
        Buffer.from([0, 0, 0, 0]),
        Buffer.from('tEXt'),
        filler,
        Buffer.from([0, 0, 0, 0]),
      ]);
      textChunk.writeUInt32BE(filler.length, 0);
      const body = Buffer.concat([image.subarray(0, 33), textChunk, image.subarray(33)]);
      const original = Buffer.from(body);
      const response = await fetch(`${served.baseUrl}/api/v1/upload`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'image/png' },
        body,
      });
      const answer = (await response.json()) as { url: string; bytes: number };
      assert.equal(response.status, 200, JSON.stringify(answer));
      assert.equal(answer.bytes, original.length);
      const stored = Buffer.from(await (await fetch(answer.url)).arrayBuffer());
      assert.ok(stored.equals(original), 'the stored file is the body, byte for byte');
      // In process, the body is the caller's own buffer: it must come back untouched.
      const injected = Buffer.from(original);
      const again = await served.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(key), 'content-type': 'image/png' },
        payload: injected,
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.ok(injected.equals(original), "an injected body's buffer is left as it was");
    } finally {
      await served.close();
    }
  });

  test('502 fetch_failed for a 404 at the source', async () => {
    assertError(await upload({ source_url: `${originUrl}/missing.png` }), 502, 'fetch_failed');
  });

  test('401 without a key', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      payload: { source_url: `${originUrl}/cat.png` },
    });
    assertError(response, 401, 'unauthorized');
  });
});
