import type { Sharp } from 'sharp';
import type { VaryStrength } from '../../base/domain/image-actions.js';
import { sharp } from '../../infra/images/sharp.js';
import { type CompositionShape, compositionSvg, seededRandom, seedOf } from './local-composition.js';
import { rgbaOf } from './local-mask.js';
import type { ProviderRequest, ReferenceImage } from './provider.js';

/** A reference image the renderer could not decode: a property of the bytes, so never worth a retry. */
export class UndecodableReferenceError extends Error {
  constructor(readonly position: number) {
    super(`Reference image ${position} could not be decoded (corrupt or truncated image data)`);
    this.name = 'UndecodableReferenceError';
  }
}

/** Runs one reference's decode, turning a decoder error into UndecodableReferenceError (1-based position). */
export async function decodeReference(index: number, decode: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await decode();
  } catch {
    throw new UndecodableReferenceError(index + 1);
  }
}

const png = (image: Sharp) => image.png({ compressionLevel: 6 }).toBuffer();

/**
 * Upscale: the picked image resampled to `width` × `height` (its size × the scale) with a Lanczos-3
 * kernel, nothing else changed (no re-toning, its alpha kept).
 */
export function upscaleImage(request: ProviderRequest, picked: ReferenceImage): Promise<Buffer> {
  return decodeReference(0, () =>
    png(
      sharp(picked.bytes, { animated: false, limitInputPixels: false }).resize(
        request.width,
        request.height,
        {
          fit: 'fill',
          kernel: 'lanczos3',
        },
      ),
    ),
  );
}

/** How far a variation moves: the re-render's opacity over the picked image, and the hue swing (±°). */
const VARIATION: Record<VaryStrength, { opacity: number; hueSwing: number }> = {
  subtle: { opacity: 0.15, hueSwing: 12 },
  strong: { opacity: 0.5, hueSwing: 70 },
};

/**
 * Vary: the picked image with its hue turned by a seed-drawn angle and a seed-driven re-render of
 * the prompt's composition laid over it (kept inside the image's own alpha), both a little for
 * `subtle` and much more for `strong`: the picture stays recognisable, and the same seed gives the
 * same variation.
 */
export async function varyImage(
  request: ProviderRequest,
  picked: ReferenceImage,
  strength: VaryStrength,
): Promise<Buffer> {
  const { opacity, hueSwing } = VARIATION[strength];
  const random = seededRandom(seedOf(request));
  const hue = Math.round((random() * 2 - 1) * hueSwing);
  const base = await decodeReference(0, () =>
    sharp(picked.bytes, { animated: false })
      .resize(request.width, request.height, { fit: 'cover' })
      .modulate({ hue: (hue + 360) % 360 })
      .png()
      .toBuffer(),
  );
  const rerender = await sharp(Buffer.from(compositionSvg(request, 1)), { limitInputPixels: false })
    .resize(request.width, request.height)
    .removeAlpha()
    .ensureAlpha(opacity)
    .png()
    .toBuffer();
  return png(sharp(base).composite([{ input: rerender, blend: 'atop' }]));
}

/** The bounding box of the pixels a mask keeps (alpha 255), or undefined when it keeps none. */
function keptBox(guide: Buffer, width: number, height: number) {
  let [left, top, right, bottom] = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (guide[(y * width + x) * 4 + 3] !== 255) continue;
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
  }
  return right < 0 ? undefined : { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/**
 * Expand's fill for the new border of a padded canvas (the masked edit then keeps the original
 * pixels exactly): the kept picture mirrored out to the canvas's edges and blurred, so its edge
 * colours run on into the border, under those of the prompt's shapes that lie wholly in the border,
 * at partial opacity. Opaque, at the canvas's size.
 */
export async function expandFill(
  request: ProviderRequest,
  canvas: ReferenceImage,
  mask: ReferenceImage,
): Promise<Buffer> {
  const { width, height } = canvas;
  const box = keptBox(await rgbaOf(mask.bytes, width, height), width, height) ?? {
    left: 0,
    top: 0,
    width,
    height,
  };
  const kept = await decodeReference(0, () =>
    sharp(canvas.bytes, { animated: false }).extract(box).removeAlpha().png().toBuffer(),
  );
  // Only the shapes wholly in the border: none is cut off where the kept picture begins.
  const clear = ({ cx, cy, r }: CompositionShape) =>
    cx + r < box.left || cx - r > box.left + box.width || cy + r < box.top || cy - r > box.top + box.height;
  const shapes = Buffer.from(compositionSvg({ ...request, width, height }, 0.35, clear));
  const mirrored = await sharp(kept)
    .extend({
      left: box.left,
      top: box.top,
      right: width - box.left - box.width,
      bottom: height - box.top - box.height,
      extendWith: 'mirror',
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // A wide blur is done small and scaled back up: the same softness, a fraction of the work.
  const sigma = Math.max(1, Math.min(width, height) / 40);
  const shrink = Math.max(1, Math.floor(sigma / 4));
  const blurred = await sharp(mirrored.data, { raw: mirrored.info })
    .resize(Math.max(1, Math.round(width / shrink)), Math.max(1, Math.round(height / shrink)))
    .blur(Math.max(0.3, sigma / shrink))
    .raw()
    .toBuffer({ resolveWithObject: true });
  return png(
    sharp(blurred.data, { raw: blurred.info })
      .resize(width, height, { fit: 'fill' })
      .composite([{ input: shapes, blend: 'over' }]),
  );
}
