import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { bmpOfSize, pngOfSize } from '../../../test/fakes/image-fixtures.js';
import { toDecodableImage } from './decodable-image.js';

test('a BMP becomes a PNG of the same size that sharp can read, opaque unless 32-bit', async () => {
  for (const bitCount of [24, 32, 8] as const) {
    const result = await toDecodableImage(bmpOfSize(37, 21, { bitCount }));
    assert.equal(result.contentType, 'image/png');
    const meta = await sharp(result.bytes).metadata();
    assert.equal(meta.width, 37);
    assert.equal(meta.height, 21);
    assert.equal(meta.hasAlpha, bitCount === 32, `alpha for ${bitCount}-bit`);
    const stats = await sharp(result.bytes).stats();
    // (the 8-bit fixture's palette is all black; the others carry a gradient)
    if (bitCount !== 8)
      assert.ok(
        stats.channels.some((c) => c.max > 0),
        'pixels are not all black',
      );
  }
});

test('other formats pass through unchanged', async () => {
  const png = pngOfSize(10, 12);
  const result = await toDecodableImage(png);
  assert.equal(result.bytes, png);
  assert.deepEqual([result.contentType, result.width, result.height], ['image/png', 10, 12]);
});
