import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { pngDimensions } from './png-header.js';

const png = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: '#336699' } })
    .png()
    .toBuffer();

test('a PNG measures as sharp measures it, from its header chunk', async () => {
  for (const [w, h, channels] of [
    [64, 64, 3],
    [1536, 1024, 4],
    [1, 3000, 3],
  ] as const) {
    const bytes = await png(w, h, channels);
    const meta = await sharp(bytes).metadata();
    assert.deepEqual(pngDimensions(bytes), { width: meta.width, height: meta.height });
  }
});

test('anything but a whole, valid PNG header chunk is left to the full reader', async () => {
  const bytes = await png(32, 16);
  assert.equal(pngDimensions(bytes.subarray(0, 30)), undefined, 'truncated');
  assert.equal(pngDimensions(await sharp(bytes).jpeg().toBuffer()), undefined, 'a JPEG');
  const corrupt = Buffer.from(bytes);
  corrupt[17] = (corrupt[17] ?? 0) ^ 0xff;
  assert.equal(pngDimensions(corrupt), undefined, 'a width that its CRC does not match');
  const zero = Buffer.from(bytes);
  zero.writeUInt32BE(0, 16);
  zero.writeUInt32BE(0, 20);
  zero.writeUInt32BE(crc32(zero.subarray(12, 29)), 29);
  assert.equal(pngDimensions(zero), undefined, 'no pixels');
});
