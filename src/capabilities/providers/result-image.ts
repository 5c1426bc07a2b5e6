import { sniffImageType as imageTypeOf } from '../../infra/images/image-type.js';

/**
 * Media type of encoded image bytes an upstream answered with, from their magic numbers (the
 * project's one sniffer); undefined for anything but png/jpeg/webp/gif, the formats a result is
 * rehosted in (a BMP result would not be readable by libvips).
 */
export function sniffImageType(bytes: Buffer): string | undefined {
  const type = imageTypeOf(bytes);
  return type === null || type === 'image/bmp' ? undefined : type;
}
