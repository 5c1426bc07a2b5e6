import { EXPAND_FACTOR_MAX } from '../../base/domain/image-actions.js';
import { sharp } from './sharp.js';

/** An expand's padded canvas and its mask, both PNGs of the canvas size. */
export interface ExpandCanvas {
  /** The picked image centred on a transparent canvas. */
  canvas: Buffer;
  /** Opaque over the picked image (kept), alpha 0 over the new border (painted): OpenAI's mask rule. */
  mask: Buffer;
  width: number;
  height: number;
  /** Where the picked image sits on the canvas. */
  left: number;
  top: number;
}

/**
 * The canvas size an expand grows `width` × `height` to: every side × `factor`, or (with `aspect`
 * `W:H`) the one pair of sides that reaches the ratio, never shrinking and at most
 * EXPAND_FACTOR_MAX per side. Sides are even so the image sits exactly in the centre.
 */
export function expandedSize(
  width: number,
  height: number,
  grow: { factor: number } | { aspect: { w: number; h: number } },
): { width: number; height: number } {
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  if ('factor' in grow) return { width: even(width * grow.factor), height: even(height * grow.factor) };
  const ratio = grow.aspect.w / grow.aspect.h;
  const wide = width / height < ratio;
  const target = wide ? { width: even(height * ratio), height } : { width, height: even(width / ratio) };
  return {
    width: Math.min(Math.max(target.width, width), even(width * EXPAND_FACTOR_MAX)),
    height: Math.min(Math.max(target.height, height), even(height * EXPAND_FACTOR_MAX)),
  };
}

/** Places `image` (any format sharp reads) in the centre of a transparent `size` canvas, with its mask. */
export async function expandCanvas(
  image: Buffer,
  source: { width: number; height: number },
  size: { width: number; height: number },
): Promise<ExpandCanvas> {
  const left = Math.floor((size.width - source.width) / 2);
  const top = Math.floor((size.height - source.height) / 2);
  const blank = (alpha: number) => ({
    create: {
      width: size.width,
      height: size.height,
      channels: 4 as const,
      background: { r: 0, g: 0, b: 0, alpha },
    },
  });
  const picked = await sharp(image).ensureAlpha().png().toBuffer();
  const kept = await sharp({
    create: {
      width: source.width,
      height: source.height,
      channels: 4,
      background: { r: 0, g: 0, b: 0, alpha: 1 },
    },
  })
    .png()
    .toBuffer();
  const [canvas, mask] = await Promise.all([
    sharp(blank(0))
      .composite([{ input: picked, left, top }])
      .png()
      .toBuffer(),
    sharp(blank(0))
      .composite([{ input: kept, left, top }])
      .png()
      .toBuffer(),
  ]);
  return { canvas, mask, width: size.width, height: size.height, left, top };
}
