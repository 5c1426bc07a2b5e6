import { open } from 'node:fs/promises';
import sharp from 'sharp';
import { InvalidImage, UnsupportedMedia } from '../platform/domain-errors.js';

export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'image/bmp';

export interface ImageInfo {
  contentType: ImageContentType;
  extension: 'png' | 'jpg' | 'webp' | 'gif' | 'bmp';
  width: number;
  height: number;
  frames: number;
}

/** Largest accepted image: width × height × frames. */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** Bytes sniffImageType needs to decide (it also works on fewer, answering null when unsure). */
export const SNIFF_BYTES = 32;

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

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// DIB header sizes of the BMP variants in use (core, info, v2, v3, OS/2 2.x short and long, v4, v5).
const BMP_DIB_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/** The image type named by the magic bytes at the start of `head`, or null. Headers and extensions are never consulted. */
export function sniffImageType(head: Buffer): ImageContentType | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  const gif = head.toString('latin1', 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif';
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  // "BM" alone is two printable letters; also require a known DIB header size so text is not taken for a bitmap.
  if (
    head.length >= 18 &&
    head.toString('latin1', 0, 2) === 'BM' &&
    BMP_DIB_HEADER_SIZES.has(head.readUInt32LE(14))
  ) {
    return 'image/bmp';
  }
  return null;
}

/** Identifies and measures an image file from its headers, without decoding pixels; throws UnsupportedMedia / InvalidImage. */
export async function inspectImageFile(path: string): Promise<ImageInfo> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const source: ByteSource = {
      size,
      async read(position, length) {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        return buffer.subarray(0, bytesRead);
      },
    };
    return await inspect(source, path);
  } finally {
    await handle.close();
  }
}

/** inspectImageFile for bytes already in memory. */
export async function inspectImageBuffer(bytes: Buffer): Promise<ImageInfo> {
  const source: ByteSource = {
    size: bytes.length,
    async read(position, length) {
      return bytes.subarray(position, position + length);
    },
  };
  return inspect(source, bytes);
}

interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `position`; fewer only at the end of the data. */
  read(position: number, length: number): Promise<Buffer>;
}

interface Measured {
  width: number;
  height: number;
  frames: number;
}

class Truncated extends Error {}
class Corrupt extends Error {}
class OverBudget extends Error {}

async function inspect(source: ByteSource, sharpInput: string | Buffer): Promise<ImageInfo> {
  const contentType = sniffImageType(await source.read(0, SNIFF_BYTES));
  if (contentType === null) {
    throw new UnsupportedMedia('The file is not a PNG, JPEG, WebP, GIF or BMP image');
  }
  let measured: Measured;
  try {
    measured = await MEASURE[contentType](new Cursor(source));
    assertWithinBudget(measured.width * measured.height * measured.frames);
  } catch (err) {
    throw toInvalidImage(err);
  }
  // Security: sharp sees the file only after the pixel budget held, and BMP never (libvips cannot
  // read it). metadata() parses headers only; it is a second opinion that libvips can open the image.
  if (contentType !== 'image/bmp') {
    let format: string | undefined;
    try {
      format = (await sharp(sharpInput, { limitInputPixels: false }).metadata()).format;
    } catch {
      format = undefined;
    }
    if (format !== SHARP_FORMATS[contentType]) {
      throw new InvalidImage('The image is corrupt or cannot be decoded');
    }
  }
  return { contentType, extension: EXTENSIONS[contentType], ...measured };
}

function assertWithinBudget(pixels: number): void {
  if (!(pixels <= MAX_IMAGE_PIXELS)) throw new OverBudget();
}

function toInvalidImage(err: unknown): unknown {
  if (err instanceof OverBudget) {
    return new InvalidImage(`The image has more than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
  }
  if (err instanceof Truncated) return new InvalidImage('The image is truncated');
  if (err instanceof Corrupt) return new InvalidImage('The image is corrupt or cannot be decoded');
  return err;
}

const WINDOW = 64 * 1024;

/** Sequential reads over a ByteSource through a 64 kB window; running past the end throws Truncated. */
class Cursor {
  pos = 0;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  /** The next `n` bytes (n ≤ 64 kB), consumed. */
  async take(n: number): Promise<Buffer> {
    const bytes = await this.peek(n);
    this.pos += n;
    return bytes;
  }

  async peek(n: number): Promise<Buffer> {
    if (this.pos + n > this.source.size) throw new Truncated();
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset + n <= this.window.length) return this.window.subarray(offset, offset + n);
    this.window = await this.source.read(this.pos, Math.max(n, WINDOW));
    this.windowStart = this.pos;
    if (this.window.length < n) throw new Truncated();
    return this.window.subarray(0, n);
  }

  async u8(): Promise<number> {
    return (await this.take(1))[0] as number;
  }

  skip(n: number): void {
    if (this.pos + n > this.source.size) throw new Truncated();
    this.pos += n;
  }

  /** Moves to the next occurrence of `byte`; false (at the end) when there is none. */
  async seek(byte: number): Promise<boolean> {
    while (this.pos < this.source.size) {
      const chunk = await this.available();
      const index = chunk.indexOf(byte);
      if (index >= 0) {
        this.pos += index;
        return true;
      }
      this.pos += chunk.length;
    }
    return false;
  }

  /** Whatever the window holds from the current position (refilled when empty). */
  private async available(): Promise<Buffer> {
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset < this.window.length) return this.window.subarray(offset);
    this.window = await this.source.read(this.pos, WINDOW);
    this.windowStart = this.pos;
    if (this.window.length === 0) throw new Truncated();
    return this.window;
  }
}

const MEASURE: Record<ImageContentType, (cursor: Cursor) => Promise<Measured>> = {
  'image/png': measurePng,
  'image/jpeg': measureJpeg,
  'image/gif': measureGif,
  'image/webp': measureWebp,
  'image/bmp': measureBmp,
};

const PNG_BIT_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** PNG: IHDR first, then every chunk must fit, up to IEND; acTL (APNG) gives the frame count. */
async function measurePng(c: Cursor): Promise<Measured> {
  c.skip(8);
  const ihdr = await c.take(8 + 13 + 4);
  if (ihdr.readUInt32BE(0) !== 13 || ihdr.toString('latin1', 4, 8) !== 'IHDR') throw new Corrupt();
  const width = ihdr.readUInt32BE(8);
  const height = ihdr.readUInt32BE(12);
  const [bitDepth, colorType, compression, filter, interlace] = [...ihdr.subarray(16, 21)] as number[];
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) throw new Corrupt();
  if (!PNG_BIT_DEPTHS[colorType as number]?.includes(bitDepth as number)) throw new Corrupt();
  if (compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) throw new Corrupt();
  // Checked before walking the chunks: a 14000×14000 PNG is refused from its first 33 bytes.
  assertWithinBudget(width * height);
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
      assertWithinBudget(width * height * frames);
    }
    c.skip(length + 4);
  }
  if (!sawData) throw new Corrupt();
  return { width, height, frames };
}

/** JPEG: walk the segments and the entropy-coded data up to EOI; the first SOFn gives the size. */
async function measureJpeg(c: Cursor): Promise<Measured> {
  c.skip(2);
  let size: { width: number; height: number } | null = null;
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
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame && size === null) {
      if (length < 8) throw new Corrupt();
      const frame = await c.peek(5);
      const height = frame.readUInt16BE(1);
      const width = frame.readUInt16BE(3);
      if (width === 0 || height === 0) throw new Corrupt();
      size = { width, height };
    }
    if (marker === 0xda) {
      if (size === null) throw new Corrupt();
      sawScan = true;
      inScan = true;
    }
    c.skip(length - 2);
  }
  if (size === null || !sawScan) throw new Corrupt();
  return { ...size, frames: 1 };
}

/** Skips entropy-coded data (where FF is followed by 00 stuffing or an RSTn) to the next real marker. */
async function nextMarkerAfterEntropyData(c: Cursor): Promise<number> {
  for (;;) {
    if (!(await c.seek(0xff))) throw new Truncated();
    c.skip(1);
    let marker = await c.u8();
    while (marker === 0xff) marker = await c.u8();
    if (marker !== 0x00 && (marker < 0xd0 || marker > 0xd7)) return marker;
  }
}

/** GIF: walk every block to the trailer, counting image descriptors as frames. */
async function measureGif(c: Cursor): Promise<Measured> {
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
      // Decoders composite every frame onto the full canvas; a frame larger than the canvas costs its own size.
      pixels += Math.max(canvas, frameWidth * frameHeight);
      assertWithinBudget(pixels);
    } else {
      throw new Corrupt();
    }
  }
  if (frames === 0) throw new Corrupt();
  return { width, height, frames };
}

async function skipGifSubBlocks(c: Cursor): Promise<void> {
  for (;;) {
    const size = await c.u8();
    if (size === 0) return;
    c.skip(size);
  }
}

/** WebP: the RIFF size must fit the file, every chunk must fit the RIFF; VP8X/ANMF give canvas and frames. */
async function measureWebp(c: Cursor): Promise<Measured> {
  const riff = await c.take(12);
  const riffSize = riff.readUInt32LE(4);
  if (riffSize < 4) throw new Corrupt();
  const end = 8 + riffSize;
  if (end > c.size) throw new Truncated();
  let canvas: { width: number; height: number; animated: boolean } | null = null;
  let still: { width: number; height: number } | null = null;
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
        width: data.readUIntLE(4, 3) + 1,
        height: data.readUIntLE(7, 3) + 1,
        animated: ((data[0] as number) & 0x02) !== 0,
      };
      assertWithinBudget(canvas.width * canvas.height);
    } else if (fourcc === 'VP8 ' || fourcc === 'VP8L') {
      if (still === null) still = fourcc === 'VP8 ' ? await vp8Size(c, length) : await vp8lSize(c, length);
    } else if (fourcc === 'ANMF') {
      if (canvas === null || length < 16) throw new Corrupt();
      frames += 1;
      assertWithinBudget(canvas.width * canvas.height * frames);
    }
    first = false;
    // Chunks are padded to an even length; the last one may end at the RIFF end without its pad.
    c.pos = Math.min(dataStart + length + (length & 1), end);
  }
  if (canvas !== null) {
    if (canvas.animated) {
      if (frames === 0) throw new Corrupt();
      return { width: canvas.width, height: canvas.height, frames };
    }
    if (still === null) throw new Corrupt();
    return { width: canvas.width, height: canvas.height, frames: 1 };
  }
  if (still === null) throw new Corrupt();
  return { ...still, frames: 1 };
}

async function vp8Size(c: Cursor, length: number): Promise<{ width: number; height: number }> {
  if (length < 10) throw new Corrupt();
  const data = await c.peek(10);
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) throw new Corrupt();
  const width = data.readUInt16LE(6) & 0x3fff;
  const height = data.readUInt16LE(8) & 0x3fff;
  if (width === 0 || height === 0) throw new Corrupt();
  return { width, height };
}

async function vp8lSize(c: Cursor, length: number): Promise<{ width: number; height: number }> {
  if (length < 5) throw new Corrupt();
  const data = await c.peek(5);
  if (data[0] !== 0x2f) throw new Corrupt();
  const bits = data.readUInt32LE(1);
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

const BMP_BIT_COUNTS = new Set([1, 4, 8, 16, 24, 32]);

/**
 * BMP, parsed by hand because libvips has no BMP loader: dimensions from the DIB header, and the
 * pixel array must lie inside the file (uncompressed rows are sized exactly; RLE by biSizeImage).
 */
async function measureBmp(c: Cursor): Promise<Measured> {
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
