/**
 * OpenAI's output-token formula of the GPT Image 2 family (the calculator of its image-generation
 * guide, "Size and quality options"; it gives 7,024-7,025 tokens for 1024x1024 at high quality,
 * the published $0.211 at $30 / 1M output tokens):
 *
 *   f     = the quality's per-axis factor (low 16, medium 48, high 96)
 *   axis  = floor((2·f·short + long) / (2·long))          (≤ f; f for a square image)
 *   tokens = ceil(f · axis · (2,000,000 + width·height) / 4,000,000)
 *
 * OpenAI publishes no factor for GPT Image 2.5's and 2.6's `xhigh` and `max`. Atelier assumes
 * xhigh 144 (the next step of the tiers' shrinking ratios: ×3, ×2, ×1.5) and max 192 (twice high's
 * factor, four times its tokens: above that progression), so a reservation errs high; replace them
 * with OpenAI's figures when it publishes them (docs/operations.md, "Prices in the catalog").
 */
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import { openAISizing, sizeFor } from '../providers/index.js';

export const QUALITY_AXIS_FACTORS: Record<ImageQuality, number> = {
  low: 16,
  medium: 48,
  high: 96,
  xhigh: 144,
  max: 192,
};

/** Output tokens of one image of `width`×`height` at `quality` (the formula above). */
export function gptImageOutputTokens(quality: ImageQuality, width: number, height: number): number {
  const f = QUALITY_AXIS_FACTORS[quality];
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const axis = Math.floor((2 * f * short + long) / (2 * long));
  return Math.ceil((f * axis * (2_000_000 + width * height)) / 4_000_000);
}

/**
 * Ratios a request can reach: a reference's own, 1:3 … 3:1 (every catalog aspect lies inside), in
 * steps far finer than the 16-pixel snap of a side, so every size Atelier can send is met.
 */
const STEPS = 20_000;
const ratioAt = (i: number) => 3 ** ((i - STEPS) / STEPS);

/** The sizes Atelier may send `upstreamModel` at `imageSize` (cached per sizing and size class). */
const sizesSent = new Map<string, Array<[number, number]>>();
function sizesOf(upstreamModel: string, imageSize: ImageSize): Array<[number, number]> {
  const key = `${openAISizing(upstreamModel).kind}:${imageSize}`;
  const known = sizesSent.get(key);
  if (known) return known;
  const found = new Map<string, [number, number]>();
  for (let i = 0; i <= 2 * STEPS; i++) {
    const size = sizeFor(upstreamModel, imageSize, ratioAt(i));
    if (typeof size !== 'string' || found.has(size)) continue;
    const [width = 0, height = 0] = size.split('x').map(Number);
    found.set(size, [width, height]);
  }
  const sizes = [...found.values()];
  sizesSent.set(key, sizes);
  return sizes;
}

/**
 * The most output tokens one image of `imageSize` at `quality` can bill on `upstreamModel`: the
 * formula at each size Atelier sends it for any ratio (src/capabilities/providers/openai-sizes.ts).
 */
export function maxGptImageOutputTokens(
  upstreamModel: string,
  imageSize: ImageSize,
  quality: ImageQuality,
): number {
  return Math.max(
    0,
    ...sizesOf(upstreamModel, imageSize).map(([w, h]) => gptImageOutputTokens(quality, w, h)),
  );
}
