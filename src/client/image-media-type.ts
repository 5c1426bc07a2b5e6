/** The media types Atelier accepts for uploads (spec 4.4). */
export type UploadMediaType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'image/bmp';

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((value, i) => bytes[offset + i] === value);
}

/**
 * The upload media type of an image, read from its magic bytes; undefined when the bytes are none of
 * png/jpeg/webp/gif/bmp. File extensions and claimed types are not trusted: the server decides the
 * same way and would refuse a mismatch.
 */
export function detectImageMediaType(bytes: Uint8Array): UploadMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // RIFF....WEBP
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) {
    return 'image/webp';
  }
  // GIF87a / GIF89a
  if (
    startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) &&
    (bytes[4] === 0x37 || bytes[4] === 0x39) &&
    bytes[5] === 0x61
  ) {
    return 'image/gif';
  }
  if (startsWith(bytes, [0x42, 0x4d]) && bytes.length >= 26) return 'image/bmp';
  return undefined;
}
