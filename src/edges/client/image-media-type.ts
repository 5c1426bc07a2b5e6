import { type ImageContentType, sniffImageType } from '../../infra/images/image-type.js';

/** The media types Atelier accepts for uploads (spec 4.4). */
export type UploadMediaType = ImageContentType;

/**
 * The upload media type of an image, read from its magic bytes; undefined when the bytes are none of
 * png/jpeg/webp/gif/bmp. File extensions and claimed types are not trusted. It is the server's own
 * sniffer (src/infra/images/image-type.ts, which needs no sharp), so the client refuses locally exactly
 * what the server would answer 415.
 */
export function detectImageMediaType(bytes: Uint8Array): UploadMediaType | undefined {
  return sniffImageType(bytes) ?? undefined;
}
