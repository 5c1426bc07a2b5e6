import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { renditionKey } from '../../src/infra/blobs/renditions.js';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** Uploads a PNG of the given size and answers its /files path. */
async function uploadPng(t: TestApp, apiKey: string, width: number, height: number): Promise<string> {
  const uploaded = await t.app.inject({
    method: 'POST',
    url: '/api/v1/upload',
    headers: { ...bearer(apiKey), 'content-type': 'image/png' },
    payload: await makePng(width, height),
  });
  assert.equal(uploaded.statusCode, 200, uploaded.body);
  return new URL((uploaded.json() as { url: string }).url).pathname;
}

/**
 * The rendition contract, the same on every blob store: a fixed set of widths, the asked format,
 * immutable caching, made once (the second answer is the stored object, same ETag), never wider
 * than the original, and the original untouched at its own URL.
 */
function renditionSuite(
  name: string,
  setup: () => Promise<{ t: TestApp; stored: (key: string) => Promise<boolean> }>,
) {
  describe(`renditions (${name})`, () => {
    let t: TestApp;
    let stored: (key: string) => Promise<boolean>;
    let path: string;
    let apiKey: string;

    before(async () => {
      ({ t, stored } = await setup());
      ({ apiKey } = await t.createAccount());
      path = await uploadPng(t, apiKey, 1000, 600);
    });
    after(() => t?.close());

    test('?w=320&format=webp: a 320 px WebP, immutable, made once and kept in storage', async () => {
      const first = await t.app.inject({ method: 'GET', url: `${path}?w=320&format=webp` });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['content-type'], 'image/webp');
      assert.equal(first.headers['cache-control'], 'public, max-age=31536000, immutable');
      const meta = await sharp(first.rawPayload).metadata();
      assert.equal(meta.format, 'webp');
      assert.equal(meta.width, 320);
      assert.equal(meta.height, 192);
      const key = path.slice('/files/'.length);
      assert.ok(await stored(renditionKey(key, 320, 'webp')), 'the rendition is in blob storage');

      const second = await t.app.inject({ method: 'GET', url: `${path}?w=320&format=webp` });
      assert.equal(second.headers.etag, first.headers.etag, 'served from storage, not made again');
      assert.deepEqual(second.rawPayload, first.rawPayload);
      const revalidated = await t.app.inject({
        method: 'GET',
        url: `${path}?w=320&format=webp`,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      assert.equal(revalidated.statusCode, 304);
    });

    test('AVIF, and the original format as the fallback; never wider than the original', async () => {
      const avif = await t.app.inject({ method: 'GET', url: `${path}?w=480&format=avif` });
      assert.equal(avif.statusCode, 200, avif.body);
      assert.equal(avif.headers['content-type'], 'image/avif');
      assert.equal((await sharp(avif.rawPayload).metadata()).width, 480);

      const png = await t.app.inject({ method: 'GET', url: `${path}?w=640` });
      assert.equal(png.headers['content-type'], 'image/png');
      assert.equal((await sharp(png.rawPayload).metadata()).width, 640);

      const wide = await t.app.inject({ method: 'GET', url: `${path}?w=1280&format=webp` });
      assert.equal((await sharp(wide.rawPayload).metadata()).width, 1000, 'no enlargement');

      const original = await t.app.inject({ method: 'GET', url: path });
      assert.equal((await sharp(original.rawPayload).metadata()).width, 1000, 'the original is untouched');
    });

    test('only the fixed widths and formats; renditions are not resized again; unknown files 404', async () => {
      assertError(await t.app.inject({ method: 'GET', url: `${path}?w=321` }), 400, 'invalid_request');
      assertError(
        await t.app.inject({ method: 'GET', url: `${path}?w=320&format=tiff` }),
        400,
        'invalid_request',
      );
      assertError(await t.app.inject({ method: 'GET', url: `${path}?format=webp` }), 400, 'invalid_request');
      const key = path.slice('/files/'.length);
      const rendition = `/files/${renditionKey(key, 320, 'webp')}`;
      const direct = await t.app.inject({ method: 'GET', url: rendition });
      assert.equal(direct.statusCode, 200, 'a rendition is also served at its own path');
      assertError(await t.app.inject({ method: 'GET', url: `${rendition}?w=160` }), 400, 'invalid_request');
      assertError(
        await t.app.inject({ method: 'GET', url: '/files/uploads/nothing.png?w=320' }),
        404,
        'not_found',
      );
    });
  });
}

renditionSuite('disk', async () => {
  const t = await createTestApp();
  return { t, stored: async (key) => (await t.core.blobs.stat(key)) !== undefined };
});

let s3: TestS3 | undefined;
renditionSuite('S3', async () => {
  s3 = await startTestS3();
  const t = await createTestApp({ env: s3.env('renditions') });
  const server = s3;
  return { t, stored: (key) => server.hasObject(`renditions/${key}`) };
});
after(() => s3?.close());

describe('renditions with ATELIER_FILES_REDIRECT=true (S3)', () => {
  let bucket: TestS3;
  let t: TestApp;
  before(async () => {
    bucket = await startTestS3();
    t = await createTestApp({ env: { ...bucket.env('redirect'), ATELIER_FILES_REDIRECT: 'true' } });
  });
  after(async () => {
    await t?.close();
    await bucket?.close();
  });

  test('the rendition is made, stored, and the answer redirects to it, not to the original', async () => {
    const { apiKey } = await t.createAccount();
    const path = await uploadPng(t, apiKey, 800, 400);
    const answer = await t.app.inject({ method: 'GET', url: `${path}?w=160&format=webp` });
    assert.equal(answer.statusCode, 302, answer.body);
    const key = renditionKey(path.slice('/files/'.length), 160, 'webp');
    assert.ok(await bucket.hasObject(`redirect/${key}`));
    const fetched = await fetch(String(answer.headers.location));
    assert.equal(fetched.status, 200);
    const meta = await sharp(Buffer.from(await fetched.arrayBuffer())).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 160, 80]);
  });
});
