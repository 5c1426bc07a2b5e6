import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { providerRequest } from '../../../test/fakes/providers/provider-request.js';
import { renderLocalImage } from './local-provider.js';
import type { ReferenceImage } from './provider.js';

const WIDTH = 120;
const HEIGHT = 80;

/** A reference with detail in every pixel (a gradient), so a copy is told from a re-render. */
async function gradientReference(): Promise<ReferenceImage> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    pixels[i * 3] = (i * 7) % 256;
    pixels[i * 3 + 1] = (i * 13) % 256;
    pixels[i * 3 + 2] = (i * 29) % 256;
  }
  const bytes = await sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .png()
    .toBuffer();
  return { bytes, contentType: 'image/png', width: WIDTH, height: HEIGHT };
}

/** Opaque everywhere but a transparent rectangle (the area to edit): x 30-69, y 20-49. */
async function holeMask(): Promise<ReferenceImage> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 4, 255);
  for (let y = 20; y < 50; y++) for (let x = 30; x < 70; x++) pixels[(y * WIDTH + x) * 4 + 3] = 0;
  const bytes = await sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } })
    .png()
    .toBuffer();
  return { bytes, contentType: 'image/png', width: WIDTH, height: HEIGHT };
}

const rgbOf = async (bytes: Buffer) => {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { data, info };
};

describe('local renderer: a masked edit', () => {
  test('changes only where the mask is transparent: every other pixel is the reference, byte for byte', async () => {
    const reference = await gradientReference();
    const mask = await holeMask();
    // A 16:9 2K target: the masked edit keeps the reference's own size instead.
    const request = providerRequest({
      mode: 'edit',
      aspect: '16:9',
      imageSize: '2K',
      references: [reference],
      mask,
    });
    const result = await rgbOf(await renderLocalImage(request));
    const original = await rgbOf(reference.bytes);
    assert.deepEqual([result.info.width, result.info.height, result.info.channels], [WIDTH, HEIGHT, 3]);
    let changedInside = 0;
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const at = (y * WIDTH + x) * 3;
        const same = result.data.subarray(at, at + 3).equals(original.data.subarray(at, at + 3));
        const inside = x >= 30 && x < 70 && y >= 20 && y < 50;
        if (!inside) assert.ok(same, `pixel ${x},${y} outside the mask's hole changed`);
        else if (!same) changedInside += 1;
      }
    }
    assert.ok(changedInside > 40 * 30 * 0.9, `the hole was edited (${changedInside} of 1200 pixels changed)`);
  });

  test('without a mask, the edit changes the whole image (the test above is not vacuous)', async () => {
    const reference = await gradientReference();
    const request = providerRequest({ mode: 'edit', references: [reference], width: WIDTH, height: HEIGHT });
    const result = await rgbOf(await renderLocalImage(request));
    const original = await rgbOf(reference.bytes);
    assert.notDeepEqual(result.data.subarray(0, 30), original.data.subarray(0, 30));
  });
});
