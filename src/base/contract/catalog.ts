import { z } from 'zod';
import { GENERATION_MODES } from '../domain/generation-modes.js';
import { IMAGE_ACTIONS, VARY_STRENGTHS } from '../domain/image-actions.js';
import { IMAGE_QUALITIES } from '../domain/image-qualities.js';
import { IMAGE_SIZES } from '../domain/image-sizes.js';

const micros = z.number().int();
/** Micro-dollars by size class. */
const perSizeSchema = z.object({ '1K': micros.optional(), '2K': micros.optional(), '4K': micros.optional() });
const day = z.string().nullable();

/** What a model costs, in micro-dollars (USD), as the catalog states it (docs/operations.md). */
export const modelPriceSchema = z
  .object({
    currency: z.literal('USD'),
    published: z.boolean().describe("The provider's published list price (false: a negotiated rate)"),
    asOf: day.describe('The day the figures were read from source (YYYY-MM-DD)'),
    source: z.string().nullable().describe("The provider's pricing page"),
    perImage: perSizeSchema.describe(
      'What one image costs by size (the catalog figure; charged when a token-billed upstream reports no tokens)',
    ),
    maxPerImage: perSizeSchema.describe(
      'The most one image can cost by size at any quality, on any route the model may fall back to (before its input)',
    ),
    maxPerImageByQuality: z
      .object(
        Object.fromEntries(IMAGE_QUALITIES.map((q) => [q, perSizeSchema.optional()])) as {
          [K in (typeof IMAGE_QUALITIES)[number]]: z.ZodOptional<typeof perSizeSchema>;
        },
      )
      .describe(
        'The most one image can cost by quality and size (what a request naming that quality reserves per image, before its input)',
      ),
    perMillionTokens: z
      .object({
        textInput: micros,
        imageInput: micros.optional(),
        output: micros,
        thinking: micros.optional(),
      })
      .nullable()
      .describe(
        'Token prices where the upstream bills tokens; the request is charged its reported tokens × these',
      ),
    maxTokensPerReference: micros
      .nullable()
      .describe(
        'Most input tokens a reference (or mask) may bill: reserved per reference at the image input price',
      ),
  })
  .meta({ id: 'ModelPrice', description: 'Prices of a model in micro-dollars (1,000,000 = $1)' });

/** The upstream model's lifecycle as its provider announced it. */
export const modelLifecycleSchema = z
  .object({
    released: day,
    deprecated: day,
    shutdown: day.describe('The day the provider turns the model off'),
    replacement: z.string().nullable().describe("The provider's recommended replacement (its model name)"),
  })
  .meta({ id: 'ModelLifecycle', description: "The model's upstream lifecycle (YYYY-MM-DD dates)" });

/** The catalog's facts about a model beyond OpenAI's four fields: every model list carries them. */
export const modelFactsSchema = z.object({
  modes: z.array(z.enum(GENERATION_MODES)),
  aspects: z.array(z.string()),
  sizes: z.array(z.enum(IMAGE_SIZES)),
  maxCount: z.number().int(),
  maxReferences: z.number().int(),
  masks: z
    .boolean()
    .describe(
      'Edits take a mask (maskUrl; mask on /v1/images/edits): fully transparent pixels say where to edit',
    ),
  seeds: z
    .boolean()
    .describe(
      'Takes a seed (generate and actions: `seed`); the seed of each image is recorded. false: a request naming one is refused',
    ),
  qualities: z
    .array(z.enum(IMAGE_QUALITIES))
    .describe('Quality tiers a request may name (quality); empty: the model takes none'),
  defaultQuality: z
    .enum(IMAGE_QUALITIES)
    .nullable()
    .describe(
      'The quality used when a request names none (null: none is sent, the reservation assumes the highest)',
    ),
  price: modelPriceSchema
    .nullable()
    .describe('null: the catalog has no price for the model (its cost is unknown)'),
  lifecycle: modelLifecycleSchema,
});

/**
 * A model as GET /models lists it: an OpenAI model object (`id`, `object`, `created`, `owned_by`)
 * that also carries Atelier's catalog fields, so OpenAI tools and Atelier's own callers read one shape.
 */
export const catalogModelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z
      .number()
      .int()
      .describe('Unix seconds; always 0: a catalog entry has no creation date (OpenAI requires the field)'),
    owned_by: z
      .string()
      .describe(
        'The provider that renders it (local, gemini, openai, replicate, fal, comfyui, or an OpenAI-compatible upstream named in the catalog)',
      ),
    name: z.string(),
    ...modelFactsSchema.shape,
  })
  .meta({ id: 'CatalogModel', description: 'A model of the catalog (an OpenAI model object)' });

export type CatalogModel = z.output<typeof catalogModelSchema>;

/** One route of an action on a finished image, as the model list offers it. */
export const actionRouteSchema = z
  .object({
    action: z.enum(IMAGE_ACTIONS),
    model: z
      .string()
      .nullable()
      .describe("The route's id (the request's `model` when several serve the action); null for reroll"),
    name: z.string(),
    scales: z.array(z.number().int()).optional().describe('upscale: the factors it takes'),
    strengths: z.array(z.enum(VARY_STRENGTHS)).optional().describe('vary: the strengths'),
    seeds: z.boolean().describe('Takes a seed'),
    price: modelPriceSchema.nullable().optional().describe("The route's price, as a model's"),
  })
  .meta({ id: 'ActionRoute', description: 'An action on a finished image and the route it runs on' });

export const modelsSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(catalogModelSchema),
    default_model: z.string().describe('The model used when a request names none'),
    actions: z
      .array(actionRouteSchema)
      .optional()
      .describe(
        "Extra field (not in the spec): the actions on a finished image this deployment offers (POST /api/v1/generations/{id}/actions), one entry per route; an action not listed is not configured. reroll (the work's own model) is always listed",
      ),
  })
  .meta({ id: 'Models', description: "Model catalog, in OpenAI's list shape" });

export type Models = z.output<typeof modelsSchema>;
