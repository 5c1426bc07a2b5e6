import { open, readFile } from 'node:fs/promises';
import { decode as decodeBmp } from 'bmp-ts';
import sharp from 'sharp';
import { InvalidImage } from '../platform/domain-errors.js';
import type { ImageInfo } from './inspect-image.js';

/** Side of the thumbnail the decode check renders: every pixel is read, almost nothing is kept. */
const CHECK_SIDE = 64;

/**
 * Decodes every pixel of every frame of an image that `inspectImageFile` accepted, so that upload
 * keeps only what the renderers and the reference encoders can read; throws InvalidImage
 * (422 `invalid_image` on the wire) otherwise. A valid header over garbage pixel data passes the header checks and
 * fails here.
 *
 * Memory stays bounded for the 100 MP budget: libvips streams the decode into a 64-pixel
 * thumbnail (shrinking needs every input pixel, so nothing is skipped) instead of materialising
 * the full image (a 100 MP RGB image would be 300 MB raw). The failure level is sharp's default
 * (`failOn: 'warning'`), the same as every decode downstream: accepted here means decodable there.
 * BMP goes through bmp-ts, the decoder the renderers use for it, which does hold the pixels (4
 * bytes per pixel), as it will at render time — except plain true-colour bitmaps, where any bytes
 * are valid pixels (see `isPlainTrueColourBmp`).
 */
export async function assertImageDecodes(input: string | Buffer, info: ImageInfo): Promise<void> {
  try {
    if (info.contentType === 'image/bmp') {
      if (await isPlainTrueColourBmp(input)) return;
      decodeBmp(typeof input === 'string' ? await readFile(input) : input, { toRGBA: true });
      return;
    }
    // The pixel budget has held (inspect), so sharp's own limit is off: it counts frames differently.
    await sharp(input, { limitInputPixels: false, animated: info.frames > 1 })
      .resize(CHECK_SIDE, CHECK_SIDE, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch {
    throw new InvalidImage('The image is corrupt or cannot be decoded');
  }
}

/**
 * True for an uncompressed (BI_RGB) 16-, 24- or 32-bit BMP. Such a pixel array has no structure to
 * get wrong: the header checks (inspect) already proved every row is in the file, and any bytes
 * are valid pixels. Decoding it would prove nothing more, at 4 bytes per pixel plus the whole file
 * in memory (four concurrent 24 MB uploads rose the server by ~190 MB). Palette, bit-field and RLE
 * bitmaps can hold indices, masks or runs a decoder trips on: those are still decoded in full.
 */
async function isPlainTrueColourBmp(input: string | Buffer): Promise<boolean> {
  let head: Buffer;
  if (typeof input === 'string') {
    const file = await open(input, 'r');
    try {
      head = Buffer.alloc(34);
      const { bytesRead } = await file.read(head, 0, 34, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  } else head = input.subarray(0, 34);
  if (head.length < 26) return false;
  const dibSize = head.readUInt32LE(14);
  if (dibSize === 12) return head.readUInt16LE(24) === 24; // OS/2 core header: no compression field
  if (head.length < 34) return false;
  const bitCount = head.readUInt16LE(28);
  const compression = head.readUInt32LE(30);
  return compression === 0 && (bitCount === 16 || bitCount === 24 || bitCount === 32);
}
