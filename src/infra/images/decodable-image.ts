import { decode as decodeBmp } from 'bmp-ts';
import { type ImageInfo, inspectImageBuffer } from './inspect-image.js';
import { sharp } from './sharp.js';

/**
 * A stored reference image in a form every decoder downstream takes. libvips (sharp) and the
 * upstream APIs read png/jpeg/webp/gif but not BMP, so a BMP is decoded with bmp-ts and re-encoded
 * as PNG (lossless); other formats pass through untouched. The bytes were checked at upload
 * (magic bytes, header dimensions, pixel budget) before they were ever stored.
 */
export async function toDecodableImage(bytes: Buffer): Promise<{
  bytes: Buffer;
  contentType: Exclude<ImageInfo['contentType'], 'image/bmp'>;
  width: number;
  height: number;
}> {
  const info = await inspectImageBuffer(bytes);
  if (info.contentType !== 'image/bmp') {
    return { bytes, contentType: info.contentType, width: info.width, height: info.height };
  }
  const bitmap = decodeBmp(bytes, { toRGBA: true });
  let image = sharp(bitmap.data, { raw: { width: bitmap.width, height: bitmap.height, channels: 4 } });
  // Only 32-bit bitmaps carry alpha; in the others the fourth byte is padding.
  if (bitmap.bitPP !== 32) image = image.removeAlpha();
  const png = await image.png().toBuffer();
  return { bytes: png, contentType: 'image/png', width: bitmap.width, height: bitmap.height };
}
