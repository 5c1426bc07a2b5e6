import { readFile } from 'node:fs/promises';
import { decode as decodeBmp } from 'bmp-ts';
import { InvalidImage } from '../../base/domain/errors.js';
import { isPlainTrueColourBmp } from './bmp-header.js';
import type { ImageInfo } from './inspect-image.js';
import { sharp } from './sharp.js';

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
      // Any bytes are valid pixels there: decoding would prove nothing more, at 4 bytes per pixel
      // plus the whole file (four concurrent 24 MB uploads rose the server by ~190 MB). Palette,
      // bit-field and RLE bitmaps can hold indices, masks or runs a decoder trips on: decoded in full.
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
