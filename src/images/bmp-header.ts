import type { Cursor } from './byte-cursor.js';
import { assertWithinBudget, Corrupt, Truncated } from './header-faults.js';

const BMP_BIT_COUNTS = new Set([1, 4, 8, 16, 24, 32]);

/**
 * BMP, parsed by hand because libvips has no BMP loader: dimensions from the DIB header, and the
 * pixel array must lie inside the file (uncompressed rows are sized exactly; RLE by biSizeImage).
 */
export async function measureBmp(c: Cursor): Promise<{ width: number; height: number; frames: number }> {
  const fileHeader = await c.take(14);
  const pixelOffset = fileHeader.readUInt32LE(10);
  const dibSize = (await c.peek(4)).readUInt32LE(0);
  let width: number;
  let height: number;
  let bitCount: number;
  let compression = 0;
  let imageSize = 0;
  if (dibSize === 12) {
    const dib = await c.take(12);
    width = dib.readUInt16LE(4);
    height = dib.readUInt16LE(6);
    if (dib.readUInt16LE(8) !== 1) throw new Corrupt();
    bitCount = dib.readUInt16LE(10);
    if (![1, 4, 8, 24].includes(bitCount)) throw new Corrupt();
  } else {
    const dib = await c.take(Math.min(dibSize, 40));
    if (dib.length < 16) throw new Corrupt();
    width = dib.readInt32LE(4);
    const signedHeight = dib.readInt32LE(8);
    // A negative height means rows are stored top-down; RLE bitmaps cannot be top-down.
    height = Math.abs(signedHeight);
    if (dib.readUInt16LE(12) !== 1) throw new Corrupt();
    bitCount = dib.readUInt16LE(14);
    if (dib.length >= 24) {
      compression = dib.readUInt32LE(16);
      imageSize = dib.readUInt32LE(20);
    }
    if (!BMP_BIT_COUNTS.has(bitCount)) throw new Corrupt();
    const rle = compression === 1 || compression === 2;
    if (compression === 1 && bitCount !== 8) throw new Corrupt();
    if (compression === 2 && bitCount !== 4) throw new Corrupt();
    if ((compression === 3 || compression === 6) && bitCount !== 16 && bitCount !== 32) throw new Corrupt();
    // 4 and 5 embed a JPEG or PNG inside the BMP: not something we hand to any decoder.
    if (![0, 1, 2, 3, 6].includes(compression)) throw new Corrupt();
    if (rle && signedHeight < 0) throw new Corrupt();
  }
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
