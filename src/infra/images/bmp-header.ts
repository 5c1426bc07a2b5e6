import { Cursor, withByteSource } from './byte-cursor.js';
import { assertWithinBudget, Corrupt, Truncated } from './header-faults.js';

const BMP_BIT_COUNTS = new Set([1, 4, 8, 16, 24, 32]);

/** The fields of a BMP's file and DIB headers that decide how its pixels are laid out. */
interface BmpHeader {
  pixelOffset: number;
  dibSize: number;
  width: number;
  height: number;
  bitCount: number;
  /** BI_RGB 0, RLE8 1, RLE4 2, BITFIELDS 3, ALPHABITFIELDS 6 (the OS/2 core header has none: 0). */
  compression: number;
  /** biSizeImage: the pixel array's size for RLE bitmaps (0 when not given). */
  imageSize: number;
}

/**
 * Reads and checks the headers of a BMP, the one format parsed by hand because libvips has no BMP
 * loader; the decode check reads the same fields through here.
 */
async function readBmpHeader(c: Cursor): Promise<BmpHeader> {
  const fileHeader = await c.take(14);
  const pixelOffset = fileHeader.readUInt32LE(10);
  const dibSize = (await c.peek(4)).readUInt32LE(0);
  if (dibSize === 12) {
    const dib = await c.take(12);
    const bitCount = dib.readUInt16LE(10);
    if (dib.readUInt16LE(8) !== 1) throw new Corrupt();
    if (![1, 4, 8, 24].includes(bitCount)) throw new Corrupt();
    const [width, height] = [dib.readUInt16LE(4), dib.readUInt16LE(6)];
    return { pixelOffset, dibSize, width, height, bitCount, compression: 0, imageSize: 0 };
  }
  const dib = await c.take(Math.min(dibSize, 40));
  if (dib.length < 16) throw new Corrupt();
  const width = dib.readInt32LE(4);
  const signedHeight = dib.readInt32LE(8);
  if (dib.readUInt16LE(12) !== 1) throw new Corrupt();
  const bitCount = dib.readUInt16LE(14);
  const compression = dib.length >= 24 ? dib.readUInt32LE(16) : 0;
  const imageSize = dib.length >= 24 ? dib.readUInt32LE(20) : 0;
  if (!BMP_BIT_COUNTS.has(bitCount)) throw new Corrupt();
  if (compression === 1 && bitCount !== 8) throw new Corrupt();
  if (compression === 2 && bitCount !== 4) throw new Corrupt();
  if ((compression === 3 || compression === 6) && bitCount !== 16 && bitCount !== 32) throw new Corrupt();
  // 4 and 5 embed a JPEG or PNG inside the BMP: not something we hand to any decoder.
  if (![0, 1, 2, 3, 6].includes(compression)) throw new Corrupt();
  // A negative height means rows are stored top-down; RLE bitmaps cannot be top-down.
  if ((compression === 1 || compression === 2) && signedHeight < 0) throw new Corrupt();
  return { pixelOffset, dibSize, width, height: Math.abs(signedHeight), bitCount, compression, imageSize };
}

/**
 * BMP dimensions from the DIB header, and the pixel array must lie inside the file (uncompressed
 * rows are sized exactly; RLE by biSizeImage).
 */
export async function measureBmp(c: Cursor): Promise<{ width: number; height: number; frames: number }> {
  const { pixelOffset, dibSize, width, height, bitCount, compression, imageSize } = await readBmpHeader(c);
  if (width <= 0 || height <= 0) throw new Corrupt();
  assertWithinBudget(width * height);
  if (pixelOffset < 14 + dibSize || pixelOffset >= c.size) throw new Truncated();
  if (compression === 0 || compression === 3 || compression === 6) {
    const rowBytes = Math.floor((bitCount * width + 31) / 32) * 4;
    if (pixelOffset + rowBytes * height > c.size) throw new Truncated();
  } else if (imageSize > 0 && pixelOffset + imageSize > c.size) {
    throw new Truncated();
  }
  return { width, height, frames: 1 };
}

/**
 * True for an uncompressed (BI_RGB) 16-, 24- or 32-bit BMP (24-bit for the OS/2 core header).
 * Such a pixel array has no structure to get wrong: the header checks (inspect) already proved
 * every row is in the file, and any bytes are valid pixels.
 */
export async function isPlainTrueColourBmp(input: string | Buffer): Promise<boolean> {
  const header = await withByteSource(input, (source) => readBmpHeader(new Cursor(source))).catch(() => null);
  if (header === null || header.compression !== 0) return false;
  return header.dibSize === 12 ? header.bitCount === 24 : [16, 24, 32].includes(header.bitCount);
}
