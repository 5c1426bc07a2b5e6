import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bmpOfSize, encodedImage, pngOfSize, undecodablePng } from '../../../test/fakes/image-fixtures.js';
import { InvalidImage } from '../../base/domain/errors.js';
import { assertImageDecodes } from './decode-check.js';
import { inspectImageBuffer } from './inspect-image.js';

/** Inspects (the header checks must pass for the case to mean anything), then runs the decode check. */
async function check(bytes: Buffer): Promise<void> {
  const info = await inspectImageBuffer(bytes);
  await assertImageDecodes(bytes, info);
}

const refusal = (err: unknown) => err instanceof InvalidImage;

test('every accepted format decodes: png, jpeg, webp, animated gif and webp, bmp', async () => {
  await check(await encodedImage('png', 40, 30));
  await check(await encodedImage('jpeg', 40, 30));
  await check(await encodedImage('webp', 40, 30));
  await check(await encodedImage('gif', 40, 30, { frames: 3 }));
  await check(await encodedImage('webp', 40, 30, { frames: 3, lossless: true }));
  await check(bmpOfSize(37, 21, { bitCount: 24 }));
});

test('valid headers over garbage pixels: refused with invalid_image', async () => {
  await assert.rejects(check(undecodablePng()), refusal);
  // A JPEG whose entropy-coded data was overwritten: segments and markers still walk to EOI.
  const jpeg = await encodedImage('jpeg', 64, 64);
  const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
  const broken = Buffer.from(jpeg);
  for (let i = sos + 20; i < broken.length - 2; i += 1) broken[i] = (i * 13) & 0x7f;
  await assert.rejects(check(broken), refusal);
  // A bit-field BMP whose pixel offset ignores its colour masks: bmp-ts reads past the end.
  const bitfields = bmpOfSize(16, 16, { bitCount: 32 });
  bitfields.writeUInt32LE(3, 30);
  await assert.rejects(check(bitfields), refusal);
});

test('a 100-megapixel PNG (the whole budget) passes with memory far below its raw size', async (ctx) => {
  const bytes = pngOfSize(10_000, 10_000);
  const info = await inspectImageBuffer(bytes);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  const started = performance.now();
  await assertImageDecodes(bytes, info);
  const ms = Math.round(performance.now() - started);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  // Figures only (no timing or memory assertion: other tests share the machine).
  ctx.diagnostic(
    `decode figures ${JSON.stringify({ pixels: 100_000_000, fileBytes: bytes.length, ms, rssGrowthMB: Math.round((peak - before) / 1e6) })}`,
  );
});
