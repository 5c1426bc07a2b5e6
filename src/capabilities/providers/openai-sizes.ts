/**
 * The `size` sent to OpenAI's GPT image models, per model (openai-node 7.57 `ImageGenerateParams.size`
 * and `ImageEditParams.size`, and OpenAI's image-generation guide):
 *
 * - `gpt-image-2`, `gpt-image-2.5-sunburst` / `-flare` and `gpt-image-2.6-sunburst` / `-flare` (and dated snapshots)
 *   take any `WIDTHxHEIGHT`: both sides multiples of 16, long side : short side at most 3:1, at most
 *   3840 pixels on a side and 8,294,400 pixels in all (3840x2160), at least 655,360 pixels. Sizes
 *   above 2560x1440 are marked experimental upstream. So `1K` and `2K` are Atelier's ≈1 and ≈4
 *   megapixels at the requested ratio, and `4K` is the largest image the API makes at that ratio
 *   (≈8.3 megapixels: 3840x2160 for 16:9, 2880x2880 for 1:1), not 16 megapixels.
 * - every other GPT image model (`gpt-image-1.5`, `gpt-image-1-mini`, `chatgpt-image-latest`…)
 *   takes the three standard sizes only, all about one megapixel: `1K` only.
 */
import { IMAGE_SIZES, type ImageSize, pixelSize } from '../../base/domain/image-sizes.js';

export const STANDARD_SIZES = ['1024x1024', '1536x1024', '1024x1536'] as const;

/** The documented limits of custom sizes. */
export const CUSTOM_SIZE_LIMITS = {
  multiple: 16,
  maxEdge: 3840,
  maxPixels: 8_294_400,
  minPixels: 655_360,
  maxRatio: 3,
} as const;

/** How one model takes sizes. */
export type OpenAISizing =
  | { kind: 'standard'; sizes: readonly string[]; imageSizes: readonly ImageSize[] }
  | { kind: 'custom'; imageSizes: readonly ImageSize[] };

const CUSTOM_SIZE_MODELS = /^gpt-image-2(?:\.[56]-(?:sunburst|flare))?(?:-\d{4}-\d{2}-\d{2})?$/;

/** The per-model size table. */
export function openAISizing(upstreamModel: string): OpenAISizing {
  if (CUSTOM_SIZE_MODELS.test(upstreamModel)) return { kind: 'custom', imageSizes: IMAGE_SIZES };
  return { kind: 'standard', sizes: STANDARD_SIZES, imageSizes: ['1K'] };
}

/** The size whose width:height is nearest `ratio` (log distance; ties go to the first). */
export function nearestSize(ratio: number, sizes: readonly string[]): string {
  const wanted = Math.log(ratio > 0 && Number.isFinite(ratio) ? ratio : 1);
  let best = sizes[0] ?? '1024x1024';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const size of sizes) {
    const [sw, sh] = size.split('x').map(Number);
    const distance = Math.abs(Math.log((sw || 1) / (sh || 1)) - wanted);
    if (distance < bestDistance - 1e-9) {
      best = size;
      bestDistance = distance;
    }
  }
  return best;
}

/** `W:H` as a number. */
export function ratioOf(aspect: string): number {
  const [w, h] = aspect.split(':').map(Number);
  return (w || 1) / (h || 1);
}

/**
 * A custom size for `ratio` at `imageSize`: Atelier's pixel count for the class (the API's largest
 * for 4K), sides multiples of 16, inside every documented limit. A string says why none fits.
 */
export function customSize(ratio: number, imageSize: ImageSize): string | { error: string } {
  const { multiple, maxEdge, maxPixels, minPixels, maxRatio } = CUSTOM_SIZE_LIMITS;
  if (ratio > maxRatio + 1e-9 || ratio < 1 / maxRatio - 1e-9) {
    return { error: `the ratio must be between 1:3 and 3:1 for custom sizes` };
  }
  const atelier = pixelSize('1:1', imageSize);
  const area = Math.min(atelier.width * atelier.height, maxPixels);
  let width = Math.sqrt(area * ratio);
  let height = Math.sqrt(area / ratio);
  const edge = Math.max(width, height);
  if (edge > maxEdge) {
    width = (width * maxEdge) / edge;
    height = (height * maxEdge) / edge;
  }
  const snap = (v: number) => Math.max(multiple, Math.round(v / multiple) * multiple);
  let w = snap(width);
  let h = snap(height);
  // Rounding may step past a limit: take 16 off the longer side until every limit holds.
  while (w * h > maxPixels || Math.max(w, h) > maxEdge) {
    if (w >= h) w -= multiple;
    else h -= multiple;
  }
  if (w * h < minPixels) return { error: `${w}x${h} is below the API's least pixel count` };
  return `${w}x${h}`;
}

/**
 * The `size` for one call: the ratio is the aspect's, or the reference's own when the caller named
 * none for an edit; a string error names what the model cannot make.
 */
export function sizeFor(
  upstreamModel: string,
  imageSize: ImageSize,
  ratio: number,
): string | { error: string } {
  const sizing = openAISizing(upstreamModel);
  if (!sizing.imageSizes.includes(imageSize)) {
    return {
      error: `${upstreamModel} makes no ${imageSize} images (sizes it offers: ${sizing.imageSizes.join(', ')}); fix the sizes of its catalog entry`,
    };
  }
  if (sizing.kind === 'standard') return nearestSize(ratio, sizing.sizes);
  return customSize(ratio, imageSize);
}

/** A reference's ratio brought inside the 1:3 … 3:1 range custom sizes allow. */
export function referenceRatio(width: number, height: number): number {
  const { maxRatio } = CUSTOM_SIZE_LIMITS;
  return Math.min(maxRatio, Math.max(1 / maxRatio, (width || 1) / (height || 1)));
}
