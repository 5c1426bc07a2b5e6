// Test-only image fixtures, generated in code. The hostile ones are written by hand so that their
// headers can promise far more pixels than their few bytes hold.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid, all-black 1-bit grayscale PNG of any size: 14000×14000 compresses to about 25 kB.
 * `frames` adds an APNG acTL chunk declaring that many frames (the frames themselves are omitted).
 */
export function pngOfSize(width: number, height: number, options: { frames?: number } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
  const rows = Buffer.alloc((Math.ceil(width / 8) + 1) * height); // each row: filter byte 0 + zero bits
  const chunks = [pngChunk('IHDR', ihdr)];
  if (options.frames !== undefined) {
    const actl = Buffer.alloc(8);
    actl.writeUInt32BE(options.frames, 0);
    chunks.push(pngChunk('acTL', actl));
  }
  chunks.push(pngChunk('IDAT', deflateSync(rows, { level: 9 })), pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]);
}

/**
 * A GIF with a `width`×`height` canvas and `frames` tiny frames (1×1 unless frameWidth/Height say
 * otherwise): a few dozen bytes whose decoders would composite frames × canvas pixels.
 */
export function gifOfSize(
  width: number,
  height: number,
  options: { frames?: number; frameWidth?: number; frameHeight?: number; trailer?: boolean } = {},
): Buffer {
  const { frames = 1, frameWidth = 1, frameHeight = 1, trailer = true } = options;
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen[4] = 0x80; // global colour table of 2 entries
  const parts: Buffer[] = [Buffer.from('GIF89a', 'latin1'), screen, Buffer.from([0, 0, 0, 255, 255, 255])];
  // NETSCAPE2.0 loop extension, as animated GIFs carry.
  parts.push(
    Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0, 0, 0x00]),
  );
  for (let i = 0; i < frames; i += 1) {
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x00, 0x0a, 0x00, 0x00, 0x00])); // graphic control: 100 ms
    const descriptor = Buffer.alloc(10);
    descriptor[0] = 0x2c;
    descriptor.writeUInt16LE(frameWidth, 5);
    descriptor.writeUInt16LE(frameHeight, 7);
    parts.push(descriptor);
    // LZW, minimum code size 2: clear, index 0, end-of-information (a single pixel's worth).
    parts.push(Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]));
  }
  if (trailer) parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/** A valid uncompressed BMP. dibHeaderSize 12 writes the old OS/2 core header. */
export function bmpOfSize(
  width: number,
  height: number,
  options: { bitCount?: 1 | 4 | 8 | 24 | 32; topDown?: boolean; dibHeaderSize?: 12 | 40 | 124 } = {},
): Buffer {
  const { bitCount = 24, topDown = false, dibHeaderSize = 40 } = options;
  const paletteEntries = bitCount <= 8 ? 2 ** bitCount : 0;
  const paletteBytes = paletteEntries * (dibHeaderSize === 12 ? 3 : 4);
  const rowBytes = Math.floor((bitCount * width + 31) / 32) * 4;
  const pixelOffset = 14 + dibHeaderSize + paletteBytes;
  const file = Buffer.alloc(pixelOffset + rowBytes * height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(pixelOffset, 10);
  file.writeUInt32LE(dibHeaderSize, 14);
  if (dibHeaderSize === 12) {
    file.writeUInt16LE(width, 18);
    file.writeUInt16LE(height, 20);
    file.writeUInt16LE(1, 22);
    file.writeUInt16LE(bitCount, 24);
  } else {
    file.writeInt32LE(width, 18);
    file.writeInt32LE(topDown ? -height : height, 22);
    file.writeUInt16LE(1, 26);
    file.writeUInt16LE(bitCount, 28);
    file.writeUInt32LE(0, 30); // BI_RGB
    file.writeUInt32LE(rowBytes * height, 34);
  }
  // A visible gradient, so the pixel array is not all zeros.
  for (let i = pixelOffset; i < file.length; i += 1) file[i] = i & 0xff;
  return file;
}

/** A BMP header promising `width`×`height` pixels with (almost) no pixel data behind it. */
export function bmpHeaderOnly(width: number, height: number): Buffer {
  const file = Buffer.alloc(14 + 40 + 16);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(54, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(24, 28);
  return file;
}

/**
 * A WebP of the extended format whose VP8X canvas is `width`×`height` and which declares
 * `frames` animation frames (ANMF chunks with empty payloads).
 */
export function animatedWebpHeader(width: number, height: number, frames: number): Buffer {
  const chunk = (fourcc: string, data: Buffer) => {
    const header = Buffer.alloc(8);
    header.write(fourcc, 0, 'latin1');
    header.writeUInt32LE(data.length, 4);
    return Buffer.concat([header, data, data.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x02; // animation
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const body = [chunk('VP8X', vp8x), chunk('ANIM', Buffer.alloc(6))];
  for (let i = 0; i < frames; i += 1) body.push(chunk('ANMF', Buffer.alloc(16)));
  const payload = Buffer.concat([Buffer.from('WEBP', 'latin1'), ...body]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(payload.length, 4);
  return Buffer.concat([riff, payload]);
}

type SharpFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/** A real image encoded by sharp (libvips); `frames` > 1 makes an animation with distinct frames. */
export async function encodedImage(
  format: SharpFormat,
  width: number,
  height: number,
  options: { frames?: number; lossless?: boolean } = {},
): Promise<Buffer> {
  const frames = options.frames ?? 1;
  const raw = Buffer.alloc(width * height * frames * 3);
  for (let i = 0; i < raw.length; i += 1) raw[i] = (i * 7 + Math.floor(i / (width * height * 3)) * 85) & 0xff;
  const image = sharp(raw, { raw: { width, height: height * frames, channels: 3, pageHeight: height } });
  switch (format) {
    case 'png':
      return image.png().toBuffer();
    case 'jpeg':
      return image.jpeg({ quality: 80 }).toBuffer();
    case 'webp':
      return image.webp({ lossless: options.lossless ?? false }).toBuffer();
    case 'gif':
      return image.gif().toBuffer();
  }
}

/**
 * A PNG whose signature, IHDR, chunk layout and CRCs are all valid but whose compressed pixel
 * data is garbage: every header check passes, only a decode of the pixels finds it.
 */
export function undecodablePng(width = 64, height = 48): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, adaptive filtering, no interlace
  const garbage = Buffer.alloc(512);
  for (let i = 0; i < garbage.length; i += 1) garbage[i] = (i * 131 + 17) & 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', garbage),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
