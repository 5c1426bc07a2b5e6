import { z } from 'zod';
import { IMAGE_QUALITIES, type ImageQuality } from '../../base/domain/image-qualities.js';
import { IMAGE_SIZES, type ImageSize } from '../../base/domain/image-sizes.js';

/** Prices are in micro-dollars (src/base/domain/money.ts). */

const micros = z.int({ error: 'must be an integer number of micro-dollars' }).min(0).max(1_000_000_000);

const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

/** Micro-dollars per image, by size. */
const perSize = z.partialRecord(z.enum(IMAGE_SIZES), micros);

/**
 * Token prices, in micro-dollars per million tokens (a provider's "$5.00 / 1M tokens" is
 * 5,000,000): what an upstream that reports its tokens bills (OpenAI's `usage`, Gemini's
 * `usageMetadata`).
 */
const perMillionTokensSchema = z.strictObject({
  /** Text input (the prompt). */
  textInput: micros,
  /** Image input (references, masks); the text input price when absent. */
  imageInput: micros.optional(),
  /** Output tokens (the image the model made). */
  output: micros,
  /** Thinking tokens (Gemini 3's thoughtsTokenCount, billed as text output); free when absent. */
  thinking: micros.optional(),
});

/**
 * The price of one upstream route (a provider and its model), as the provider published it on
 * `asOf` at `source`: per image by size, and/or per token where the provider bills tokens. Every
 * figure is in micro-dollars (see CURRENCY).
 */
export const routePriceSchema = z
  .strictObject({
    /** True when the figures are the provider's published list prices (not a negotiated rate). */
    published: z.boolean().default(true),
    /** The day the figures were read. */
    asOf: isoDay.optional(),
    /** Where they were read (the provider's pricing page). */
    source: z.string().url().optional(),
    /**
     * The last attempt to re-read the price that could not confirm it (the provider's page could
     * not be read): the day, and what was consulted and what it said. The figures and `asOf` stay
     * as read; `catalog check` adds this to its report of an old price.
     */
    recheck: z.strictObject({ on: isoDay, note: z.string().min(1).max(1000) }).optional(),
    /**
     * Per image by size: what an image costs when the upstream bills per image, or when a
     * token-billed upstream reported no tokens (the provider's own per-image figure for that size).
     */
    perImage: perSize.optional(),
    perMillionTokens: perMillionTokensSchema.optional(),
    /**
     * The most one image can cost, by size: what admission reserves against a budget (for a
     * token-billed route, the published per-image figure at the highest quality). `perImage` when
     * absent.
     */
    maxPerImage: perSize.optional(),
    /**
     * The most one image can cost, by quality and size, where the upstream takes a `quality` (OpenAI's
     * GPT image models): a request naming a quality reserves its row; one naming none reserves the
     * highest of all rows (the upstream's `auto` may pick any). Derived from the provider's token
     * formula (src/capabilities/catalog/gpt-image-tokens.ts), written out in docs/operations.md.
     */
    maxPerImageByQuality: z.partialRecord(z.enum(IMAGE_QUALITIES), perSize).optional(),
    /** Most input tokens one reference image may bill (token-billed routes): reserved per reference. */
    maxTokensPerReference: z.int().min(0).max(1_000_000).optional(),
  })
  .refine((price) => price.perImage !== undefined || price.perMillionTokens !== undefined, {
    message: 'a price needs perImage or perMillionTokens',
  });

export type RoutePrice = z.output<typeof routePriceSchema>;

/** Where a task's cost came from: the upstream's own token figures, or the catalog's per-image price. */
export type CostSource = 'upstream_usage' | 'catalog_price';

export interface ImageCost {
  micros: number;
  source: CostSource;
}

/** The token figures a cost is computed from (Atelier's neutral ImageUsage). */
export interface UsageTokens {
  input_tokens: number;
  output_tokens: number;
  input_tokens_details?: { image_tokens: number; text_tokens: number };
  thinking_tokens?: number;
}

/** tokens × price per million, in micros, rounded up to a whole micro (never under-counts). */
const tokenCost = (tokens: number, perMillion: number) => Math.ceil((tokens * perMillion) / 1_000_000);

/**
 * What one completed image cost: from the upstream's token figures × the token prices when the
 * route bills tokens and the upstream reported them, else the per-image price of its size (of its
 * quality, where the route prices qualities);
 * undefined when the route has no price that applies (unknown, never guessed).
 */
export function costOfImage(
  price: RoutePrice | undefined,
  size: ImageSize,
  usage: UsageTokens | undefined,
  /** The quality the image was asked at: without usage, its `maxPerImageByQuality` row applies. */
  quality?: ImageQuality,
): ImageCost | undefined {
  if (!price) return undefined;
  const tokens = price.perMillionTokens;
  if (tokens && usage) {
    const details = usage.input_tokens_details;
    const imageInput = details?.image_tokens ?? 0;
    // Without a split every input token is billed as text (the lower rate is never assumed).
    const textInput = details ? details.text_tokens : usage.input_tokens;
    const inputMicros =
      tokenCost(textInput, tokens.textInput) + tokenCost(imageInput, tokens.imageInput ?? tokens.textInput);
    const micros =
      inputMicros +
      tokenCost(usage.output_tokens, tokens.output) +
      tokenCost(usage.thinking_tokens ?? 0, tokens.thinking ?? 0);
    return { micros, source: 'upstream_usage' };
  }
  // A quality asked: its row (the most that tier bills) where the route has one, never more.
  const perImage = (quality && price.maxPerImageByQuality?.[quality]?.[size]) ?? price.perImage?.[size];
  return perImage === undefined ? undefined : { micros: perImage, source: 'catalog_price' };
}

/** What a request may bring as input (for the input part of a token-billed route's reservation). */
export interface RequestInput {
  /** The prompt's length in characters: a tokenizer never makes more tokens than characters. */
  promptChars: number;
  references: number;
}

/**
 * The most the image part of one image of `size` can cost on this route at `quality`: the quality's
 * row of `maxPerImageByQuality`; with no quality (or a route without that row), the highest of
 * every row and of `maxPerImage` (else `perImage`).
 */
function maxImagePart(price: RoutePrice, size: ImageSize, quality: ImageQuality | undefined): number {
  const base = price.maxPerImage?.[size] ?? price.perImage?.[size] ?? 0;
  const rows = price.maxPerImageByQuality;
  if (!rows) return base;
  const chosen = quality === undefined ? undefined : rows[quality]?.[size];
  if (chosen !== undefined) return chosen;
  return Math.max(base, ...Object.values(rows).map((row) => row?.[size] ?? 0));
}

/**
 * The most one image of `size` at `quality` can cost on this route: the per-image maximum plus, for
 * a token-billed route, its whole input at most (one token per prompt character, and
 * `maxTokensPerReference` per reference). 0 when the route has no price (it costs nothing known).
 */
export function maxImageCost(
  price: RoutePrice | undefined,
  size: ImageSize,
  input: RequestInput,
  quality?: ImageQuality,
): number {
  if (!price) return 0;
  const image = maxImagePart(price, size, quality);
  const tokens = price.perMillionTokens;
  if (!tokens) return image;
  const referenceTokens = input.references * (price.maxTokensPerReference ?? 0);
  return (
    image +
    tokenCost(input.promptChars, tokens.textInput) +
    tokenCost(referenceTokens, tokens.imageInput ?? tokens.textInput)
  );
}
