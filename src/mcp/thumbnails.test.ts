import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { pngOfSize } from '../../test/fakes/image-fixtures.js';
import { createThumbnailer } from './thumbnails.js';

/** Random pixels: the worst case for JPEG size, so budgets are really exercised. */
async function noisePng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = seed & 0xff;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

describe('createThumbnailer', () => {
  let baseUrl = '';
  let png: Buffer;
  let bomb: Buffer;
  const seenHeaders: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seenHeaders.push(req.headers);
    const path = (req.url ?? '').split('?')[0];
    if (path === '/image.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (path === '/text') res.writeHead(200, { 'content-type': 'image/png' }).end('not really an image');
    else if (path === '/drawing.svg')
      res
        .writeHead(200, { 'content-type': 'image/svg+xml' })
        .end(
          '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>',
        );
    else if (path === '/bomb.png') res.writeHead(200, { 'content-type': 'image/png' }).end(bomb);
    else res.writeHead(404).end();
  });

  before(async () => {
    png = await noisePng(1536, 1024);
    bomb = pngOfSize(14_000, 14_000);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('shrinks an image to a JPEG of at most 512 px, keeping its ratio', async () => {
    const [outcome] = await createThumbnailer().render([`${baseUrl}/image.png`]);
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'no outcome');
    const { thumbnail } = outcome;
    assert.equal(thumbnail.mimeType, 'image/jpeg');
    assert.deepEqual([thumbnail.width, thumbnail.height], [512, 341]);
    const meta = await sharp(Buffer.from(thumbnail.data, 'base64')).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.width, 512);
  });

  it('sends no Authorization header with the download', async () => {
    seenHeaders.length = 0;
    await createThumbnailer().render([`${baseUrl}/image.png`]);
    assert.equal(seenHeaders.length, 1);
    assert.equal(seenHeaders[0]?.authorization, undefined);
  });

  it('keeps many thumbnails within the budget by making each smaller', async () => {
    const urls = Array.from({ length: 20 }, (_, i) => `${baseUrl}/image.png?n=${i}`);
    const budgetChars = 300_000;
    const outcomes = await createThumbnailer({ budgetChars }).render(urls);
    assert.equal(outcomes.length, 20);
    let total = 0;
    for (const outcome of outcomes) {
      assert.ok(outcome.ok);
      assert.ok(outcome.thumbnail.width < 512);
      total += outcome.thumbnail.data.length;
    }
    assert.ok(total <= budgetChars, `total ${total}`);
  });

  it('gives up on a thumbnail that cannot fit rather than exceed the budget', async () => {
    const [outcome] = await createThumbnailer({ budgetChars: 100 }).render([`${baseUrl}/image.png`]);
    assert.ok(outcome && !outcome.ok);
    assert.match(outcome.reason, /size limit/);
  });

  it('answers one outcome per URL in order, with reasons for the failures', async () => {
    const outcomes = await createThumbnailer().render([
      `${baseUrl}/missing.png`,
      `${baseUrl}/image.png`,
      `${baseUrl}/text`,
      `${baseUrl}/image.png`,
    ]);
    assert.equal(outcomes.length, 4);
    assert.ok(outcomes[0] && !outcomes[0].ok && /HTTP 404/.test(outcomes[0].reason));
    assert.ok(outcomes[1]?.ok);
    assert.ok(outcomes[2] && !outcomes[2].ok && /decode/.test(outcomes[2].reason));
    assert.deepEqual(outcomes[3], outcomes[1]);
  });

  it('judges bytes like the server: an SVG (which libvips would render) and a 196 MP PNG are refused', async () => {
    const [svg, huge] = await createThumbnailer().render([`${baseUrl}/drawing.svg`, `${baseUrl}/bomb.png`]);
    assert.ok(
      svg && !svg.ok && /not a PNG, JPEG, WebP, GIF or BMP image/.test(svg.reason),
      JSON.stringify(svg),
    );
    assert.ok(huge && !huge.ok && /more than 100 megapixels/.test(huge.reason), JSON.stringify(huge));
  });

  it('stops downloading a source larger than the cap', async () => {
    const [outcome] = await createThumbnailer({ maxSourceBytes: 1000 }).render([`${baseUrl}/image.png`]);
    assert.ok(outcome && !outcome.ok);
    assert.match(outcome.reason, /larger than 1000 bytes/);
  });

  it('refuses URLs that are not http(s)', async () => {
    const [outcome] = await createThumbnailer().render(['file:///etc/passwd']);
    assert.ok(outcome && !outcome.ok);
    assert.match(outcome.reason, /not an http\(s\) URL/);
  });
});
