import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { compareWithIdle, floodUntilRefused } from '../support/latency.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** A PNG of random pixels: it does not compress, so its size is about width × height × 3 bytes. */
const noisePng = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

let shade = 0;
/** A small PNG no other upload of the test has (uploads of the same bytes are one image). */
const distinctPng = () => makePng(24, 24, { r: shade++ % 256, g: Math.floor(shade / 256), b: 7 });

describe('uploads are capped per account and UTC day, by count and bytes (issue 25, item 12)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      startEngine: false,
      env: { ATELIER_UPLOADS_PER_DAY: '3', ATELIER_UPLOAD_BYTES_PER_DAY: '60000' },
    });
  });
  after(() => t?.close());

  const upload = (apiKey: string, png: Buffer) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: png,
    });

  test('past the day’s uploads a new one is 429 with Retry-After (before any fetch); other accounts still upload', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    for (let i = 0; i < 3; i++) {
      const answer = await upload(a.apiKey, await distinctPng());
      assert.equal(answer.statusCode, 200, answer.body);
    }
    const refused = await upload(a.apiKey, await distinctPng());
    assert.match(assertError(refused, 429, 'too_many_requests'), /at most 3 uploads/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    // By URL too, refused before the URL is even looked at (it would be a 400 otherwise).
    const byUrl = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: bearer(a.apiKey),
      payload: { source_url: 'http://10.0.0.1/x.png' },
    });
    assertError(byUrl, 429, 'too_many_requests');
    assert.equal((await upload(b.apiKey, await distinctPng())).statusCode, 200);
    const [row] = await t.core.resources.db
      .selectFrom('upload_usage')
      .selectAll()
      .where('account_id', '=', a.id)
      .execute();
    assert.equal(Number(row?.uploads), 3, 'the quota is in the database, shared by every node');
  });

  test('bytes count as well: an upload that does not fit is refused, a smaller one still fits', async () => {
    const c = await t.createAccount();
    const big = await noisePng(100, 100); // ~30 KB
    assert.ok(big.length > 30_000 && big.length < 60_000);
    assert.equal((await upload(c.apiKey, big)).statusCode, 200);
    assertError(await upload(c.apiKey, await noisePng(101, 101)), 429, 'too_many_requests');
    const small = await upload(c.apiKey, await distinctPng());
    assert.equal(small.statusCode, 200, small.body);
  });

  test('concurrent uploads never pass the quota together', async () => {
    const d = await t.createAccount();
    const pngs = await Promise.all(Array.from({ length: 8 }, () => distinctPng()));
    const codes = (await Promise.all(pngs.map((png) => upload(d.apiKey, png)))).map((r) => r.statusCode);
    assert.deepEqual(codes.sort(), [200, 200, 200, 429, 429, 429, 429, 429]);
  });
});

describe('an account at its upload quota leaves the others fast (issue 25, item 12, measured)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false, env: { ATELIER_UPLOADS_PER_DAY: '50' } });
  });
  after(() => t?.close());

  test("another account's uploads stay within a small factor of idle", async () => {
    const flooder = await t.createAccount();
    // One measuring account per trial: its own uploads count against the same cap (50).
    const others = await Promise.all([0, 1, 2].map(() => t.createAccount()));
    const upload = async (apiKey: string, png?: Buffer) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/upload',
          headers: { ...bearer(apiKey), 'content-type': 'image/png' },
          payload: png ?? (await distinctPng()),
        })
      ).statusCode;
    // One client sending as fast as it is answered (the same image each time: a repeat counts).
    const png = await distinctPng();
    const trials = await compareWithIdle({
      label: "other account's upload, flooder at its quota",
      request: async (trial) => {
        assert.equal(await upload(others[trial]?.apiKey ?? ''), 200);
      },
      samples: 9,
      warmUp: 9,
      factor: 20,
      startLoad: () => floodUntilRefused(() => upload(flooder.apiKey, png)),
    });
    const statuses = trials.flatMap((trial) => trial.load);
    assert.equal(statuses.filter((status) => status === 200).length, 50, 'the quota holds');
  });
});
