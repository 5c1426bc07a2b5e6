import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { undecodablePng } from '../fakes/image-fixtures.js';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// A PNG with a valid signature, IHDR, chunk layout and CRCs over garbage pixel data: every header
// check passes, only decoding the pixels finds it. Before the fix, upload answered 200 and an edit
// task on it sat in_progress through six retries (~30 s), then failed "Internal error…".
describe('undecodable images', () => {
  let t: TestApp;
  let apiKey: string;
  let accountId: string;
  let origin: Server;
  let originUrl: string;
  const garbage = undecodablePng();

  before(async () => {
    origin = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(garbage);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    originUrl = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port}` } });
    ({ apiKey, id: accountId } = await t.createAccount());
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => origin.close(resolve));
  });

  test('upload refuses it with 422 invalid_image, by URL and as a direct upload; nothing is stored', async () => {
    const byUrl = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: bearer(apiKey),
      payload: { source_url: `${originUrl}/garbage.png` },
    });
    assert.match(assertError(byUrl, 422, 'invalid_image'), /corrupt or cannot be decoded/);
    const direct = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: garbage,
    });
    assertError(direct, 422, 'invalid_image');
    const sha = createHash('sha256').update(garbage).digest('hex');
    assert.equal(await t.core.blobs.stat(`uploads/${sha}.png`), undefined);
    // A real image of the same size still passes.
    const fine = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(64, 48),
    });
    assert.equal(fine.statusCode, 200, fine.body);
  });

  test('generate with such a URL as a reference is refused the same way (imageUrls[0])', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'edit it', mode: 'edit', imageSize: '1K', imageUrls: [`${originUrl}/g.png`] },
    });
    assert.match(assertError(response, 422, 'invalid_image'), /^imageUrls\[0\]: /);
  });

  test('a stored reference the renderer cannot decode ends its task failed at once, saying why', async () => {
    // As if uploaded before uploads were decoded: the bytes sit in storage under an upload key.
    const key = `uploads/${createHash('sha256').update(garbage).digest('hex')}.png`;
    await t.core.blobs.put(key, garbage, 'image/png');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'edit it', mode: 'edit', imageSize: '1K', imageUrls: [`${t.baseUrl}/files/${key}`] },
    });
    assert.equal(response.statusCode, 200, response.body);
    const [taskId] = response.json().task_ids as string[];
    const { final } = await pollUntilFinal(t.app, apiKey, taskId ?? '');
    assert.equal(final.status, 'failed');
    assert.equal(final.error, 'Reference image 1 could not be decoded (corrupt or truncated image data)');
    const row = await t.core.tasks.findForAccount(accountId, taskId ?? '');
    assert.equal(row?.attempts, 0, 'a deterministic failure is not retried');
  });
});
