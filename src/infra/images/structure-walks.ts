import type { Cursor } from './byte-cursor.js';
import { assertWithinBudget, Corrupt, Truncated } from './header-faults.js';
import type { ImageContentType } from './image-type.js';

/** What a structure walk vouches for: the file is whole, and how many frames it declares. */
export interface Walked {
  frames: number;
}

/**
 * The truncation walks: what libvips' header reader does not check. Each walks the file's
 * structure to its end marker (a cut file is refused here, before any decoder sees it), and counts
 * what costs pixels beyond the first frame where libvips would not (APNG frames, GIF frames
 * composited onto their canvas, WebP animation frames of a header libwebp cannot even parse).
 */
export const WALK: Record<Exclude<ImageContentType, 'image/bmp'>, (cursor: Cursor) => Promise<Walked>> = {
  'image/png': walkPng,
  'image/jpeg': walkJpeg,
  'image/gif': walkGif,
  'image/webp': walkWebp,
};

/** PNG: every chunk must fit, up to IEND, with image data; acTL (APNG) gives the frame count. */
async function walkPng(c: Cursor): Promise<Walked> {
  c.skip(8);
  let frames = 1;
  let sawData = false;
  for (;;) {
    const header = await c.take(8);
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(type)) throw new Corrupt();
    if (type === 'IEND') break;
    if (type === 'IDAT') sawData = true;
    if (type === 'acTL') {
      if (length !== 8) throw new Corrupt();
      frames = (await c.peek(4)).readUInt32BE(0);
      if (frames === 0) throw new Corrupt();
    }
    c.skip(length + 4);
  }
  if (!sawData) throw new Corrupt();
  return { frames };
}

/** JPEG: walk the segments and the entropy-coded data up to EOI; a frame header must come before the scan. */
async function walkJpeg(c: Cursor): Promise<Walked> {
  c.skip(2);
  let sawFrame = false;
  let sawScan = false;
  let inScan = false;
  for (;;) {
    let marker: number;
    if (inScan) {
      marker = await nextMarkerAfterEntropyData(c);
      inScan = false;
    } else {
      if ((await c.u8()) !== 0xff) throw new Corrupt();
      marker = await c.u8();
      while (marker === 0xff) marker = await c.u8();
    }
    if (marker === 0xd9) break;
    if (marker === 0xd8 || marker === 0x00) throw new Corrupt();
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    const length = (await c.take(2)).readUInt16BE(0);
    if (length < 2) throw new Corrupt();
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      sawFrame = true;
    if (marker === 0xda) {
      if (!sawFrame) throw new Corrupt();
      sawScan = true;
      inScan = true;
    }
    c.skip(length - 2);
  }
  if (!sawScan) throw new Corrupt();
  return { frames: 1 };
}

async function nextMarkerAfterEntropyData(c: Cursor): Promise<number> {
  for (;;) {
    if (!(await c.seek(0xff))) throw new Truncated();
    c.skip(1);
    let marker = await c.u8();
    while (marker === 0xff) marker = await c.u8();
    if (marker !== 0x00 && (marker < 0xd0 || marker > 0xd7)) return marker;
  }
}

/**
 * GIF: walk every block to the trailer, counting image descriptors as frames. Decoders composite
 * every frame onto the logical screen, which libvips does not report (it sizes the image by its
 * frames), so the budget is counted here, from the screen.
 */
async function walkGif(c: Cursor): Promise<Walked> {
  c.skip(6);
  const screen = await c.take(7);
  const width = screen.readUInt16LE(0);
  const height = screen.readUInt16LE(2);
  const packed = screen[4] as number;
  if (width === 0 || height === 0) throw new Corrupt();
  if (packed & 0x80) c.skip(3 * 2 ** ((packed & 0x07) + 1));
  const canvas = width * height;
  let frames = 0;
  let pixels = 0;
  for (;;) {
    const introducer = await c.u8();
    if (introducer === 0x3b) break;
    if (introducer === 0x21) {
      c.skip(1);
      await skipGifSubBlocks(c);
    } else if (introducer === 0x2c) {
      const descriptor = await c.take(9);
      const frameWidth = descriptor.readUInt16LE(4);
      const frameHeight = descriptor.readUInt16LE(6);
      const framePacked = descriptor[8] as number;
      if (framePacked & 0x80) c.skip(3 * 2 ** ((framePacked & 0x07) + 1));
      const minCodeSize = await c.u8();
      if (minCodeSize < 1 || minCodeSize > 11) throw new Corrupt();
      await skipGifSubBlocks(c);
      frames += 1;
      // A frame larger than the canvas costs its own size.
      pixels += Math.max(canvas, frameWidth * frameHeight);
      assertWithinBudget(pixels);
    } else {
      throw new Corrupt();
    }
  }
  if (frames === 0) throw new Corrupt();
  return { frames };
}

async function skipGifSubBlocks(c: Cursor): Promise<void> {
  for (;;) {
    const size = await c.u8();
    if (size === 0) return;
    c.skip(size);
  }
}

/**
 * WebP: the RIFF size must fit the file and every chunk the RIFF, with a bitstream or animation
 * frames. VP8X × ANMF is budgeted here: libwebp refuses to even parse a header whose frames are
 * empty, which would hide that it promised more pixels than the budget.
 */
async function walkWebp(c: Cursor): Promise<Walked> {
  const riff = await c.take(12);
  const riffSize = riff.readUInt32LE(4);
  if (riffSize < 4) throw new Corrupt();
  const end = 8 + riffSize;
  if (end > c.size) throw new Truncated();
  let canvas: { pixels: number; animated: boolean } | null = null;
  let sawStill = false;
  let frames = 0;
  let first = true;
  while (c.pos < end) {
    if (end - c.pos < 8) throw new Corrupt();
    const header = await c.take(8);
    const fourcc = header.toString('latin1', 0, 4);
    const length = header.readUInt32LE(4);
    const dataStart = c.pos;
    if (dataStart + length > end) throw new Truncated();
    if (fourcc === 'VP8X') {
      if (!first || length < 10) throw new Corrupt();
      const data = await c.peek(10);
      canvas = {
        pixels: (data.readUIntLE(4, 3) + 1) * (data.readUIntLE(7, 3) + 1),
        animated: ((data[0] as number) & 0x02) !== 0,
      };
      assertWithinBudget(canvas.pixels);
    } else if (fourcc === 'VP8 ' || fourcc === 'VP8L') {
      sawStill = true;
    } else if (fourcc === 'ANMF') {
      if (canvas === null || length < 16) throw new Corrupt();
      frames += 1;
      assertWithinBudget(canvas.pixels * frames);
    }
    first = false;
    // Chunks are padded to an even length; the last one may end at the RIFF end without its pad.
    c.pos = Math.min(dataStart + length + (length & 1), end);
  }
  if (canvas?.animated) {
    if (frames === 0) throw new Corrupt();
    return { frames };
  }
  if (!sawStill) throw new Corrupt();
  return { frames: 1 };
}
