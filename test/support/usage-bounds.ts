import type { ImageQuality } from '../../src/base/domain/image-qualities.js';
import type { ImageSize } from '../../src/base/domain/image-sizes.js';
import type { UpstreamRoute } from '../../src/capabilities/catalog/catalog.js';
import {
  gptImageOutputTokens,
  QUALITY_AXIS_FACTORS,
} from '../../src/capabilities/catalog/gpt-image-tokens.js';
import { sizeFor } from '../../src/capabilities/providers/openai-sizes.js';

/**
 * The most of each kind of token a provider's documentation lets one image bill (what a fake
 * upstream may report): text input ≤ one token per prompt character; image input ≤ the route's
 * `maxTokensPerReference` per reference (or mask); output ≤ OpenAI's token formula at the size sent
 * and the quality asked (any tier when none was: `auto`), or, on a Gemini route, the published
 * per-image output tokens of the size (its per-image price ÷ its output token price); thinking ≤
 * 2,000 tokens (Gemini 3's budget as docs/operations.md states it).
 */
export interface UsageBounds {
  text: number;
  image: number;
  output: number;
  thinking: number;
}

export function usageBounds(
  route: UpstreamRoute,
  request: {
    imageSize: ImageSize;
    ratio: number;
    quality: ImageQuality | undefined;
    promptChars: number;
    references: number;
  },
): UsageBounds {
  const price = route.price;
  const text = request.promptChars;
  const image = request.references * (price?.maxTokensPerReference ?? 0);
  if (route.provider === 'openai') {
    const size = sizeFor(route.upstreamModel, request.imageSize, request.ratio);
    if (typeof size !== 'string') throw new Error(size.error);
    const [width = 0, height = 0] = size.split('x').map(Number);
    const tiers = request.quality ? [request.quality] : (Object.keys(QUALITY_AXIS_FACTORS) as ImageQuality[]);
    const output = Math.max(...tiers.map((q) => gptImageOutputTokens(q, width, height)));
    return { text, image, output, thinking: 0 };
  }
  const perImage = price?.perImage?.[request.imageSize] ?? 0;
  const outputPrice = price?.perMillionTokens?.output ?? 1;
  return { text, image, output: Math.floor((perImage * 1_000_000) / outputPrice), thinking: 2000 };
}
