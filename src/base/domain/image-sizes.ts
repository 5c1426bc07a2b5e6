/** An image's size class, smallest first (the long side near 1024, 2048 or 4096 pixels). */
export const IMAGE_SIZES = ['1K', '2K', '4K'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** An aspect ratio as written in the catalog and requests: W:H, each 1–999. */
export const ASPECT_PATTERN = /^([1-9][0-9]{0,2}):([1-9][0-9]{0,2})$/;

/** Pixel size for an aspect and size: ≈1, 4 or 16 megapixels, sides rounded to multiples of 16. */
export function pixelSize(aspect: string, imageSize: ImageSize): { width: number; height: number } {
  const match = ASPECT_PATTERN.exec(aspect);
  if (!match) throw new Error(`bad aspect ${aspect}`);
  const w = Number(match[1]);
  const h = Number(match[2]);
  const side = imageSize === '1K' ? 1024 : imageSize === '2K' ? 2048 : 4096;
  const area = side * side;
  const width = Math.sqrt((area * w) / h);
  const height = width * (h / w);
  const round16 = (v: number) => Math.max(16, Math.round(v / 16) * 16);
  return { width: round16(width), height: round16(height) };
}
