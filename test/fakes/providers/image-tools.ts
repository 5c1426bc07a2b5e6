/**
 * What the fake upstreams' image tools really do to the image they are sent (a data URL, as the
 * adapters send it): an upscaler resamples it to its size × the factor; a background remover
 * answers a PNG with alpha, the pixels of the background (the colour of the image's corner) made
 * fully transparent and the rest kept opaque.
 */
import sharp from 'sharp';

/** The bytes of a `data:image/…;base64,` URL; undefined for anything else. */
export function dataUrlBytes(value: unknown): Buffer | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^data:image\/(?:png|jpeg|webp);base64,(.+)$/.exec(value);
  return match?.[1] ? Buffer.from(match[1], 'base64') : undefined;
}

/** The image resampled to its size × `scale` (Lanczos, as upscalers' own resize step), as a PNG. */
export async function upscaledPng(image: Buffer, scale: number): Promise<Buffer> {
  const { width = 1, height = 1 } = await sharp(image).metadata();
  return sharp(image)
    .resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'lanczos3' })
    .png()
    .toBuffer();
}

/** The image with its background cut out: pixels near the top-left corner's colour get alpha 0. */
export async function cutoutPng(image: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r0 = 0, g0 = 0, b0 = 0] = [data[0], data[1], data[2]];
  for (let i = 0; i < data.length; i += 4) {
    const distance =
      Math.abs((data[i] ?? 0) - r0) + Math.abs((data[i + 1] ?? 0) - g0) + Math.abs((data[i + 2] ?? 0) - b0);
    data[i + 3] = distance <= 24 ? 0 : 255;
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
    .png()
    .toBuffer();
}

/** Size of an image, for the tools' answers (fal's `image.width`/`height`). */
export async function sizeOf(image: Buffer): Promise<{ width: number; height: number }> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  return { width, height };
}

/** A picture with a subject on a plain background: a dark square centred on white (a remover's input). */
export async function subjectPng(width = 48, height = 32): Promise<Buffer> {
  const side = Math.floor(Math.min(width, height) / 2);
  const square = await sharp({
    create: { width: side, height: side, channels: 3, background: '#aa2233' },
  })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([
      { input: square, left: Math.floor((width - side) / 2), top: Math.floor((height - side) / 2) },
    ])
    .png()
    .toBuffer();
}

/** Alpha values of a PNG's pixels: how many are fully transparent and how many fully opaque. */
export async function alphaCounts(
  png: Buffer,
): Promise<{ transparent: number; opaque: number; channels: number }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let transparent = 0;
  let opaque = 0;
  if (info.channels === 4)
    for (let i = 3; i < data.length; i += 4) {
      if (data[i] === 0) transparent++;
      if (data[i] === 255) opaque++;
    }
  return { transparent, opaque, channels: info.channels };
}
