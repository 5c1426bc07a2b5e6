import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createThumbnailer, THUMBNAIL_WIDTHS } from './thumbnails.js';

/** A stand-in for a WebP rendition `width` px wide: the magic bytes, then `width * 100` bytes. */
function fakeWebp(width: number): Buffer {
  const body = Buffer.alloc(12 + width * 100, 7);
  body.write('RIFF', 0, 'latin1');
  body.writeUInt32LE(body.length - 8, 4);
  body.write('WEBP', 8, 'latin1');
  return body;
}

/** Atelier's /files route as far as thumbnails care: `?w=&format=webp` answers a rendition. */
describe('createThumbnailer (from Atelier renditions)', () => {
  let baseUrl = '';
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://x');
    const width = Number(url.searchParams.get('w'));
    if (url.pathname.startsWith('/files/results/') && url.searchParams.get('format') === 'webp' && width > 0)
      res.writeHead(200, { 'content-type': 'image/webp' }).end(fakeWebp(width));
    else if (url.pathname === '/files/text')
      res.writeHead(200, { 'content-type': 'image/webp' }).end('not really');
    else res.writeHead(404).end();
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('asks for the widest WebP rendition, without the API key, and sizes it from the original', async () => {
    seen.length = 0;
    const [outcome] = await createThumbnailer().render([
      { url: `${baseUrl}/files/results/a.png`, width: 3840, height: 2160 },
    ]);
    assert.ok(outcome?.ok, JSON.stringify(outcome));
    assert.deepEqual(
      [outcome.thumbnail.mimeType, outcome.thumbnail.width, outcome.thumbnail.height],
      ['image/webp', 480, 270],
    );
    assert.ok(Buffer.from(outcome.thumbnail.data, 'base64').equals(fakeWebp(480)));
    assert.deepEqual(
      seen.map((request) => request.url),
      ['/files/results/a.png?w=480&format=webp'],
    );
    assert.equal(seen[0]?.headers.authorization, undefined);
  });

  it('never claims a rendition wider than a narrow original', async () => {
    const [outcome] = await createThumbnailer().render([
      { url: `${baseUrl}/files/results/small.png`, width: 300, height: 150 },
    ]);
    assert.ok(outcome?.ok);
    assert.deepEqual([outcome.thumbnail.width, outcome.thumbnail.height], [300, 150]);
  });

  it('keeps many thumbnails within the budget by asking for narrower renditions', async () => {
    const sources = Array.from({ length: 20 }, (_, i) => ({ url: `${baseUrl}/files/results/${i}.png` }));
    const budgetChars = 600_000;
    const outcomes = await createThumbnailer({ budgetChars }).render(sources);
    assert.equal(outcomes.length, 20);
    let total = 0;
    for (const outcome of outcomes) {
      assert.ok(outcome.ok);
      assert.ok(outcome.thumbnail.width < (THUMBNAIL_WIDTHS[0] as number));
      total += outcome.thumbnail.data.length;
    }
    assert.ok(total <= budgetChars, `total ${total}`);
  });

  it('gives up on a thumbnail that cannot fit rather than exceed the budget', async () => {
    const [outcome] = await createThumbnailer({ budgetChars: 100 }).render([
      { url: `${baseUrl}/files/results/a.png` },
    ]);
    assert.ok(outcome && !outcome.ok);
    assert.match(outcome.reason, /size limit/);
  });

  it('answers one outcome per source in order, with reasons for the failures', async () => {
    const outcomes = await createThumbnailer().render([
      { url: `${baseUrl}/files/missing.png` },
      { url: `${baseUrl}/files/results/a.png` },
      { url: `${baseUrl}/files/text` },
      { url: `${baseUrl}/files/results/a.png` },
    ]);
    assert.equal(outcomes.length, 4);
    assert.ok(outcomes[0] && !outcomes[0].ok && /HTTP 404/.test(outcomes[0].reason));
    assert.ok(outcomes[1]?.ok);
    assert.ok(outcomes[2] && !outcomes[2].ok && /not an image/.test(outcomes[2].reason));
    assert.deepEqual(outcomes[3], outcomes[1]);
  });

  it('refuses URLs that are not http(s)', async () => {
    const [outcome] = await createThumbnailer().render([{ url: 'file:///etc/passwd' }]);
    assert.ok(outcome && !outcome.ok);
    assert.match(outcome.reason, /not an http\(s\) URL/);
  });
});
