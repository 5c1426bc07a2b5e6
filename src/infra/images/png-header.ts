import { crc32 } from 'node:zlib';
import { sniffImageType } from './image-type.js';

// Bit depths allowed per colour type (PNG spec 11.2.2): grey, RGB, palette, grey+alpha, RGBA.
const DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * The dimensions a PNG's header chunk declares, read from the bytes (no libvips round trip): the
 * signature, then an IHDR chunk that is whole, valid and intact (its CRC). Undefined for anything
 * else, which the caller then hands to the full header reader.
 */
export function pngDimensions(bytes: Buffer): { width: number; height: number } | undefined {
  // Signature (8), IHDR length and type (8), its 13 bytes of data, its CRC (4).
  if (bytes.length < 33 || sniffImageType(bytes.subarray(0, 8)) !== 'image/png') return undefined;
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  if (crc32(bytes.subarray(12, 29)) !== bytes.readUInt32BE(29)) return undefined;
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const [depth, colourType, compression, filter, interlace] = bytes.subarray(24, 29);
  const valid =
    width > 0 &&
    height > 0 &&
    width < 2 ** 31 &&
    height < 2 ** 31 &&
    DEPTHS[colourType ?? -1]?.includes(depth ?? -1) === true &&
    compression === 0 &&
    filter === 0 &&
    (interlace === 0 || interlace === 1);
  return valid ? { width, height } : undefined;
}
