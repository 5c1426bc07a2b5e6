/** The image types Atelier accepts (spec 4.4). */
export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'image/bmp';

/** Bytes sniffImageType needs to decide (it also works on fewer, answering null when unsure). */
export const SNIFF_BYTES = 32;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// DIB header sizes of the BMP variants in use (core, info, v2, v3, OS/2 2.x short and long, v4, v5).
const BMP_DIB_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/**
 * The image type named by the magic bytes at the start of `head`, or null. Headers and extensions
 * are never consulted. The one sniffer of the project: the server's inspector, the providers'
 * answers and the client's uploads all decide with it. It has no dependency (no sharp), so the
 * client can use it too.
 */
export function sniffImageType(head: Uint8Array): ImageContentType | null {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.length >= 8 && PNG_SIGNATURE.every((value, i) => bytes[i] === value)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const gif = bytes.toString('latin1', 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif';
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  // "BM" alone is two printable letters; also require a known DIB header size so text is not taken for a bitmap.
  if (
    bytes.length >= 18 &&
    bytes.toString('latin1', 0, 2) === 'BM' &&
    BMP_DIB_HEADER_SIZES.has(bytes.readUInt32LE(14))
  ) {
    return 'image/bmp';
  }
  return null;
}
