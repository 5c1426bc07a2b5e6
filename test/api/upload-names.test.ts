import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { deriveKey } from '../../src/base/secrets/secret-box.js';
import { UPLOAD_NAMING_KEY_LABEL } from '../../src/capabilities/uploads/content-names.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Issue 25, item 17: an upload's URL must not let anyone holding an image test whether it was
// uploaded, so its name is an HMAC under a key derived from the master key, not the SHA-256.

const MASTER_KEY = randomBytes(32);

describe('upload names', () => {
  let t: TestApp;
  let other: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_MASTER_KEY: MASTER_KEY.toString('hex') } });
    // Another deployment: its own master key.
    other = await createTestApp({ startEngine: false });
  });
  after(async () => {
    await t.close();
    await other.close();
  });

  const upload = async (app: TestApp, apiKey: string, image: Buffer) => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: image,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { url: string; filename: string };
  };

  test('the name is the HMAC of the bytes under the deployment key, not their SHA-256; the same bytes share it', async () => {
    const image = await makePng(33, 21, { r: 10, g: 200, b: 90 });
    const sha256 = createHash('sha256').update(image).digest('hex');
    const first = await upload(t, (await t.createAccount()).apiKey, image);
    assert.notEqual(first.filename, `${sha256}.png`);
    assert.ok(!first.url.includes(sha256));
    const expected = createHmac('sha256', deriveKey(MASTER_KEY, UPLOAD_NAMING_KEY_LABEL))
      .update(image)
      .digest('hex');
    assert.equal(first.filename, `${expected}.png`);
    // De-duplicated: another account uploading the same bytes gets the same file.
    const again = await upload(t, (await t.createAccount()).apiKey, image);
    assert.equal(again.url, first.url);
    // Another deployment (another master key) names the same bytes otherwise.
    const elsewhere = await upload(other, (await other.createAccount()).apiKey, image);
    assert.notEqual(elsewhere.filename, first.filename);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/files/uploads/${sha256}.png` })).statusCode,
      404,
    );
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(first.url).pathname })).statusCode, 200);
  });

  test('an upload stored under its old SHA-256 name keeps working, as a file and as a reference', async () => {
    const { apiKey } = await t.createAccount();
    const image = await makePng(40, 40, { r: 1, g: 2, b: 3 });
    const key = `uploads/${createHash('sha256').update(image).digest('hex')}.png`;
    await t.core.blobs.put(key, image, 'image/png');
    const file = await t.app.inject({ method: 'GET', url: `/files/${key}` });
    assert.equal(file.statusCode, 200);
    assert.deepEqual(file.rawPayload, image);
    const generated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'edit the old upload', mode: 'edit', imageUrls: [`${t.baseUrl}/files/${key}`] },
    });
    assert.equal(generated.statusCode, 200, generated.body);
  });
});
