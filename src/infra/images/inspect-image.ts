import type { Metadata } from 'sharp';
import { InvalidImage, UnsupportedMedia } from '../../base/domain/errors.js';
import { measureBmp } from './bmp-header.js';
import { type ByteSource, Cursor, withByteSource } from './byte-cursor.js';
import { assertWithinBudget, Corrupt, MAX_IMAGE_PIXELS, OverBudget, Truncated } from './header-faults.js';
import { type ImageContentType, SNIFF_BYTES, sniffImageType } from './image-type.js';
import { sharp } from './sharp.js';
import { WALK, type Walked } from './structure-walks.js';

export { MAX_IMAGE_PIXELS } from './header-faults.js';
export { type ImageContentType, SNIFF_BYTES, sniffImageType } from './image-type.js';

export interface ImageInfo {
  contentType: ImageContentType;
  extension: 'png' | 'jpg' | 'webp' | 'gif' | 'bmp';
  width: number;
  height: number;
  frames: number;
}

const EXTENSIONS: Record<ImageContentType, ImageInfo['extension']> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
};

const SHARP_FORMATS: Record<Exclude<ImageContentType, 'image/bmp'>, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/**
 * Identifies and measures an image file without decoding pixels: the magic bytes say the type,
 * a walk proves the file whole, libvips' header reader (sharp metadata) gives the dimensions,
 * and BMP, which libvips cannot read, is measured from its own header. Throws UnsupportedMedia
 * (415 at the edge) or InvalidImage (422): truncated, corrupt, or over the pixel budget.
 */
export async function inspectImageFile(path: string): Promise<ImageInfo> {
  return withByteSource(path, (source) => inspect(source, path));
}

/** inspectImageFile for bytes already in memory. */
export async function inspectImageBuffer(bytes: Buffer): Promise<ImageInfo> {
  return withByteSource(bytes, (source) => inspect(source, bytes));
}

async function inspect(source: ByteSource, sharpInput: string | Buffer): Promise<ImageInfo> {
  const contentType = sniffImageType(await source.read(0, SNIFF_BYTES));
  if (contentType === null) {
    throw new UnsupportedMedia('The file is not a PNG, JPEG, WebP, GIF or BMP image');
  }
  try {
    // Security: the walk comes first, so libvips only ever reads a file whose structure is whole
    // and whose declared frames fit the budget; BMP never reaches it.
    const measured =
      contentType === 'image/bmp'
        ? await measureBmp(new Cursor(source))
        : await measureWithSharp(contentType, await WALK[contentType](new Cursor(source)), sharpInput);
    assertWithinBudget(measured.width * measured.height * measured.frames);
    return { contentType, extension: EXTENSIONS[contentType], ...measured };
  } catch (err) {
    throw toInvalidImage(err);
  }
}

/**
 * Dimensions and frames from libvips' header reader, with its pixel limit on (a 14000×14000 PNG is
 * refused from its header). The walk's frame count wins when libvips sees fewer (it reads one
 * frame of an APNG). A format other than the magic bytes said is a polyglot: corrupt.
 */
async function measureWithSharp(
  contentType: Exclude<ImageContentType, 'image/bmp'>,
  walked: Walked,
  input: string | Buffer,
): Promise<Omit<ImageInfo, 'contentType' | 'extension'>> {
  let metadata: Metadata;
  try {
    metadata = await sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  } catch (err) {
    // sharp's wording since 0.2x. Its limit is per frame; the budget in `inspect` counts every frame.
    if (err instanceof Error && /exceeds pixel limit/i.test(err.message)) throw new OverBudget();
    throw new Corrupt();
  }
  const { format, width, height } = metadata;
  if (format !== SHARP_FORMATS[contentType] || !width || !height) throw new Corrupt();
  return {
    width,
    height: metadata.pageHeight ?? height,
    frames: Math.max(metadata.pages ?? 1, walked.frames),
  };
}

function toInvalidImage(err: unknown): unknown {
  if (err instanceof OverBudget) {
    return new InvalidImage(`The image has more than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
  }
  if (err instanceof Truncated) return new InvalidImage('The image is truncated');
  if (err instanceof Corrupt) return new InvalidImage('The image is corrupt or cannot be decoded');
  return err;
}
