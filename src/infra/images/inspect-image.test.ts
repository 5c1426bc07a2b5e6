import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import {
  animatedWebpHeader,
  bmpHeaderOnly,
  bmpOfSize,
  encodedImage,
  gifOfSize,
  pngOfSize,
} from '../../../test/fakes/image-fixtures.js';
import { DomainError } from '../../base/domain/errors.js';
import {
  type ImageInfo,
  inspectImageBuffer,
  inspectImageFile,
  MAX_IMAGE_PIXELS,
  sniffImageType,
} from './inspect-image.js';

let dir: string;
let counter = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atelier-inspect-test-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs both entry points on the same bytes and checks they agree. The file name's extension is deliberately wrong. */
async function inspectBoth(bytes: Buffer): Promise<ImageInfo> {
  counter += 1;
  const path = join(dir, `upload-${counter}.png`);
  await writeFile(path, bytes);
  const [fromFile, fromBuffer] = await Promise.allSettled([
    inspectImageFile(path),
    inspectImageBuffer(bytes),
  ]);
  if (fromFile.status === 'fulfilled' && fromBuffer.status === 'fulfilled') {
    assert.deepEqual(fromFile.value, fromBuffer.value);
    return fromFile.value;
  }
  if (fromFile.status === 'rejected' && fromBuffer.status === 'rejected') {
    assert.deepEqual(
      { outcome: fromFile.reason?.outcome, message: fromFile.reason?.message },
      { outcome: fromBuffer.reason?.outcome, message: fromBuffer.reason?.message },
    );
    throw fromFile.reason;
  }
  assert.fail(`file and buffer disagree: ${fromFile.status} vs ${fromBuffer.status}`);
}

/** The edge answers `unsupported_media` with 415 and `invalid_image` with 422 (its one mapping table). */
function rejectsWith(outcome: 'unsupported_media' | 'invalid_image', pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof DomainError, `expected a DomainError, got ${String(err)}`);
    assert.equal(err.outcome, outcome);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

describe('sniffImageType', () => {
  it('recognises each supported type by its magic bytes', async () => {
    assert.equal(sniffImageType(await encodedImage('png', 4, 4)), 'image/png');
    assert.equal(sniffImageType(await encodedImage('jpeg', 4, 4)), 'image/jpeg');
    assert.equal(sniffImageType(await encodedImage('webp', 4, 4)), 'image/webp');
    assert.equal(sniffImageType(await encodedImage('gif', 4, 4)), 'image/gif');
    assert.equal(sniffImageType(bmpOfSize(4, 4)), 'image/bmp');
  });

  it('answers null for SVG, HTML, ZIP, PDF, text starting with "BM", and empty input', () => {
    const samples = [
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
      '<!doctype html><html><body><img src=x onerror=alert(1)></body></html>',
      'PK\u0003\u0004\u0014\u0000\u0000\u0000\u0008\u0000',
      '%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n',
      'BMW owners manual, chapter 1: the engine',
      '',
    ];
    for (const sample of samples) assert.equal(sniffImageType(Buffer.from(sample, 'latin1')), null, sample);
  });
});

describe('inspectImageFile / inspectImageBuffer', () => {
  it('reads type, extension, dimensions and frames of sharp-encoded images', async () => {
    const cases: Array<[Buffer, Partial<ImageInfo>]> = [
      [
        await encodedImage('png', 31, 17),
        { contentType: 'image/png', extension: 'png', width: 31, height: 17, frames: 1 },
      ],
      [
        await encodedImage('jpeg', 64, 48),
        { contentType: 'image/jpeg', extension: 'jpg', width: 64, height: 48 },
      ],
      [
        await encodedImage('webp', 40, 30),
        { contentType: 'image/webp', extension: 'webp', width: 40, height: 30 },
      ],
      [
        await encodedImage('webp', 41, 29, { lossless: true }),
        { contentType: 'image/webp', width: 41, height: 29 },
      ],
      [
        await encodedImage('gif', 25, 20),
        { contentType: 'image/gif', extension: 'gif', width: 25, height: 20 },
      ],
      [
        await encodedImage('gif', 20, 10, { frames: 3 }),
        { contentType: 'image/gif', width: 20, height: 10, frames: 3 },
      ],
      [
        await encodedImage('webp', 20, 10, { frames: 4 }),
        { contentType: 'image/webp', width: 20, height: 10, frames: 4 },
      ],
    ];
    for (const [bytes, expected] of cases) {
      const info = await inspectBoth(bytes);
      for (const [key, value] of Object.entries(expected)) {
        assert.equal(info[key as keyof ImageInfo], value, `${expected.contentType} ${key}`);
      }
    }
  });

  it('accepts a progressive JPEG and one with data after EOI', async () => {
    const progressive = await sharp(await encodedImage('png', 120, 80))
      .jpeg({ progressive: true })
      .toBuffer();
    assert.equal((await inspectBoth(progressive)).width, 120);
    const trailing = Buffer.concat([await encodedImage('jpeg', 30, 20), Buffer.from('trailing camera data')]);
    assert.equal((await inspectBoth(trailing)).height, 20);
  });

  it('reads BMP headers itself (24-bit, 32-bit top-down, 8-bit palette, 1-bit, OS/2 core header, v5)', async () => {
    // sharp (libvips) has no BMP loader: these passing proves BMP never reaches it.
    await assert.rejects(sharp(bmpOfSize(3, 2)).metadata());
    const cases: Array<[Buffer, number, number]> = [
      [bmpOfSize(3, 2), 3, 2],
      [bmpOfSize(5, 7, { bitCount: 32, topDown: true }), 5, 7],
      [bmpOfSize(9, 4, { bitCount: 8 }), 9, 4],
      [bmpOfSize(17, 3, { bitCount: 1 }), 17, 3],
      [bmpOfSize(6, 6, { dibHeaderSize: 12 }), 6, 6],
      [bmpOfSize(10, 2, { dibHeaderSize: 124 }), 10, 2],
    ];
    for (const [bytes, width, height] of cases) {
      assert.deepEqual(await inspectBoth(bytes), {
        contentType: 'image/bmp',
        extension: 'bmp',
        width,
        height,
        frames: 1,
      });
    }
  });

  it('answers 415 for SVG, HTML, ZIP and plain text, whatever the file is called', async () => {
    for (const sample of [
      '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>',
      '<html><script>alert(1)</script></html>',
      'PK\u0003\u0004 zip archive',
      'just text',
      '',
    ]) {
      await assert.rejects(inspectBoth(Buffer.from(sample, 'latin1')), rejectsWith('unsupported_media'));
    }
  });

  it('refuses a 14000×14000 PNG of under 1 MB from its header (422)', async () => {
    const bomb = pngOfSize(14_000, 14_000);
    assert.ok(bomb.length < 1024 * 1024, `fixture is ${bomb.length} bytes`);
    await assert.rejects(inspectBoth(bomb), rejectsWith('invalid_image', /megapixels/));
  });

  it('accepts exactly 100 megapixels and refuses one row more', async () => {
    assert.equal(MAX_IMAGE_PIXELS, 100_000_000);
    const info = await inspectBoth(pngOfSize(10_000, 10_000));
    assert.deepEqual([info.width, info.height, info.frames], [10_000, 10_000, 1]);
    await assert.rejects(inspectBoth(pngOfSize(10_000, 10_001)), rejectsWith('invalid_image', /megapixels/));
  });

  it('counts animation frames into the budget (GIF, APNG, WebP)', async () => {
    // 5000×5000 canvas × 4 frames = 100 MP: allowed; × 5 = 125 MP: refused, though the file is tiny.
    assert.equal((await inspectBoth(gifOfSize(5000, 5000, { frames: 4 }))).frames, 4);
    const gif = gifOfSize(5000, 5000, { frames: 5 });
    assert.ok(gif.length < 200);
    await assert.rejects(inspectBoth(gif), rejectsWith('invalid_image', /megapixels/));
    // A frame bigger than its canvas costs its own size.
    const oversizedFrame = gifOfSize(1, 1, { frameWidth: 20_000, frameHeight: 20_000 });
    await assert.rejects(inspectBoth(oversizedFrame), rejectsWith('invalid_image', /megapixels/));
    await assert.rejects(
      inspectBoth(pngOfSize(2000, 2000, { frames: 30 })),
      rejectsWith('invalid_image', /megapixels/),
    );
    await assert.rejects(
      inspectBoth(animatedWebpHeader(8000, 8000, 2)),
      rejectsWith('invalid_image', /megapixels/),
    );
  });

  it('refuses a BMP header promising more than 100 MP (422), without reading pixel data', async () => {
    await assert.rejects(
      inspectBoth(bmpHeaderOnly(50_000, 50_000)),
      rejectsWith('invalid_image', /megapixels/),
    );
  });

  it('refuses truncated files of every type (422)', async () => {
    const jpeg = await encodedImage('jpeg', 200, 150);
    const png = await encodedImage('png', 200, 150);
    const gif = await encodedImage('gif', 60, 40, { frames: 2 });
    const webp = await encodedImage('webp', 200, 150);
    const bmp = bmpOfSize(40, 30);
    const truncated = [
      jpeg.subarray(0, Math.floor(jpeg.length / 2)),
      jpeg.subarray(0, jpeg.length - 2), // everything but EOI
      jpeg.subarray(0, 200), // inside the headers
      png.subarray(0, png.length - 12), // IEND missing
      png.subarray(0, Math.floor(png.length / 2)),
      png.subarray(0, 20), // inside IHDR
      gif.subarray(0, gif.length - 1), // trailer missing
      gif.subarray(0, Math.floor(gif.length / 2)),
      webp.subarray(0, webp.length - 10),
      bmp.subarray(0, bmp.length - 1),
      gifOfSize(10, 10, { trailer: false }),
    ];
    for (const [index, bytes] of truncated.entries()) {
      await assert.rejects(inspectBoth(bytes), rejectsWith('invalid_image'), `case ${index}`);
    }
  });

  it('refuses structurally corrupt files (422)', async () => {
    const png = await encodedImage('png', 8, 8);
    const badDepth = Buffer.from(png);
    badDepth[24] = 3; // bit depth 3 does not exist
    const polyglot = Buffer.concat([
      png.subarray(0, 8),
      Buffer.from('<html><body>not really a png</body></html>'),
    ]);
    const bmpJpeg = bmpOfSize(4, 4);
    bmpJpeg.writeUInt32LE(4, 30); // BI_JPEG: a JPEG inside a BMP
    const bmpNegativeWidth = bmpOfSize(4, 4);
    bmpNegativeWidth.writeInt32LE(-4, 18);
    const jpegNoFrame = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    for (const bytes of [badDepth, polyglot, bmpJpeg, bmpNegativeWidth, jpegNoFrame]) {
      await assert.rejects(inspectBoth(bytes), rejectsWith('invalid_image'));
    }
  });
});
