// The catalog document's shape (ATELIER_CATALOG, catalogs/*.json): the Zod schema every model entry
// and the whole file are checked against, and the types read from it. Lookups over a parsed catalog
// live in catalog.ts.
import { z } from 'zod';
import { GENERATION_MODES } from '../../base/domain/generation-modes.js';
import { ROUTED_ACTIONS, UPSCALE_FACTORS } from '../../base/domain/image-actions.js';
import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import { ASPECT_PATTERN as aspectPattern, IMAGE_SIZES } from '../../base/domain/image-sizes.js';
import { compatibleUpstreamsSchema, falEndpointsSchema } from '../providers/index.js';
import { routePriceSchema } from './prices.js';

/** The spec's listed ratios plus 4:5 and 5:4 (DESIGN.md §2). */
export const DEFAULT_ASPECTS = [
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '9:16',
  '16:9',
  '21:9',
  '4:5',
  '5:4',
] as const;
export const DEFAULT_MODEL_ID = 'base-image-2';
export const DEFAULT_MAX_COUNT = 4;

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)), 'not a calendar date');

/**
 * The upstream model's lifecycle as its provider announced it: `bin/atelier catalog check` and the
 * start-up report warn about entries near or past `shutdown`, and a task failed for a missing
 * model names `replacement`.
 */
const lifecycleSchema = z
  .object({
    released: isoDay.optional(),
    deprecated: isoDay.optional(),
    /** The day the provider turns the model off (or its earliest announced shutdown). */
    shutdown: isoDay.optional(),
    /** The provider's recommended replacement (its upstream model name). */
    replacement: z.string().min(1).optional(),
    /** Where the dates come from (the provider's deprecations page). */
    source: z.string().url().optional(),
  })
  .strict();

export type Lifecycle = z.infer<typeof lifecycleSchema>;

/**
 * Limits of the upstream route's capacity, shared by every worker (docs/operations.md, "Capacity
 * and fairness"). Absent limits are learned from the upstream's refusals.
 */
export const capacitySchema = z
  .object({
    /** Calls in flight at once per key. */
    maxInFlight: z.number().int().min(1).max(100_000).optional(),
    /** Calls started per minute per key. */
    requestsPerMinute: z.number().int().min(1).max(1_000_000).optional(),
    /** Images per minute per key (one image per call: a cap on calls per minute as well). */
    imagesPerMinute: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict();

/** `"<node id>.<input name>"`: one input of a ComfyUI workflow's node. */
const nodeInputSchema = z
  .string()
  .regex(/^[^.\s]+\.[A-Za-z0-9_]+$/, 'a node input as "<node id>.<input name>"');

/**
 * A ComfyUI route's workflow settings (docs/providers.md, "ComfyUI"): where Atelier's fields go in
 * the workflow its `upstreamModel` names (found in the graph where not named), and the negative
 * prompt it sends.
 */
const comfyuiSchema = z
  .object({
    inputs: z
      .object({
        prompt: nodeInputSchema.optional(),
        negativePrompt: nodeInputSchema.optional(),
        width: nodeInputSchema.optional(),
        height: nodeInputSchema.optional(),
        seed: nodeInputSchema.optional(),
        batchSize: nodeInputSchema.optional(),
        images: z.array(nodeInputSchema).max(16).optional(),
      })
      .strict()
      .optional(),
    negativePrompt: z.string().max(4000).optional(),
    /** The workflow an edit or a fusion runs, where not the `upstreamModel` one (a text workflow). */
    workflows: z
      .object({ edit: z.string().min(1).optional(), fusion: z.string().min(1).optional() })
      .strict()
      .optional(),
  })
  .strict();

const modelIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'model id: lowercase letters, digits, ".", "_" or "-"');

export const catalogEntrySchema = z
  .object({
    id: modelIdSchema,
    /**
     * Other ids that name this model (OpenAI's and Google's model ids, so tools that ship those
     * defaults work): accepted wherever a model id is, listed by GET /v1/models with `alias_of`.
     */
    aliases: z.array(modelIdSchema).max(32).default([]),
    displayName: z.string().min(1).max(100).optional(),
    provider: z.string().min(1),
    upstreamModel: z.string().min(1),
    modes: z.array(z.enum(GENERATION_MODES)).min(1),
    aspects: z
      .array(z.string().regex(aspectPattern, 'aspect must look like W:H'))
      .min(1)
      .default([...DEFAULT_ASPECTS]),
    sizes: z
      .array(z.enum(IMAGE_SIZES))
      .min(1)
      .default([...IMAGE_SIZES]),
    maxCount: z.number().int().min(1).max(16).default(DEFAULT_MAX_COUNT),
    /** Most references a fusion request may carry (edit always takes exactly one). */
    maxReferences: z.number().int().min(2).max(16).default(4),
    /**
     * Edits take a mask (OpenAI's: a PNG the image's size whose fully transparent pixels say where
     * to edit): only for routes whose upstream takes one (OpenAI's edits, the local renderer).
     */
    masks: z.boolean().default(false),
    /**
     * The quality tiers the upstream takes (OpenAI's `quality`), lowest first: a request may name
     * one (`quality`); absent, the model takes none and a request naming one is refused.
     */
    qualities: z.array(z.enum(IMAGE_QUALITIES)).min(1).optional(),
    /**
     * The quality sent when a request names none (one of `qualities`); absent, none is sent (the
     * upstream's `auto`) and admission reserves at the highest quality.
     */
    defaultQuality: z.enum(IMAGE_QUALITIES).optional(),
    /** Capacity limits of the model's own upstream route, per key. */
    capacity: capacitySchema.optional(),
    /**
     * Other upstream routes for the same model, tried in order when a submit fails with a retryable
     * upstream fault (or the provider's circuit is open) and the upstream cannot have accepted it.
     */
    fallbacks: z
      .array(
        z
          .object({
            provider: z.string().min(1),
            upstreamModel: z.string().min(1),
            lifecycle: lifecycleSchema.optional(),
            price: routePriceSchema.optional(),
            /** Capacity limits of this route, per key (its own pool: the model's limits stay on its own route). */
            capacity: capacitySchema.optional(),
          })
          .strict(),
      )
      .max(4)
      .default([]),
    lifecycle: lifecycleSchema.optional(),
    /** The price of the model's own upstream route (docs/operations.md, "Prices and budgets"). */
    price: routePriceSchema.optional(),
    /** For `provider: "comfyui"`: the workflow's field mapping and negative prompt. */
    comfyui: comfyuiSchema.optional(),
    /**
     * The upstream takes a seed (docs/api.md, "Seeds"): a request's `seed` is sent, and one is
     * picked and recorded when none is asked; without it, a request naming a seed is refused.
     */
    seeds: z.boolean().default(false),
    /**
     * This entry is an action's route, not a model to generate with (issue 45, docs/api.md,
     * "Actions"): `POST /api/v1/generations/{id}/actions` runs the action here. Hidden from the
     * model lists; its modes are `["edit"]` (the picked image is the reference).
     */
    action: z.enum(ROUTED_ACTIONS).optional(),
    /** For an `upscale` route: the largest factor it takes (2 or 4; default 4). */
    maxScale: z
      .number()
      .int()
      .refine((n) => (UPSCALE_FACTORS as readonly number[]).includes(n), 'maxScale must be 2 or 4')
      .optional(),
  })
  .strict();

export const catalogFileSchema = z
  .object({
    models: z.array(catalogEntrySchema).min(1),
    /** OpenAI-compatible servers, each a provider named by its key (docs/providers.md). */
    upstreams: compatibleUpstreamsSchema.optional(),
    /** Input shapes of the fal endpoints the models name (docs/providers.md, "fal"). */
    falEndpoints: falEndpointsSchema.optional(),
  })
  .strict()
  .superRefine((catalog, ctx) => {
    const seen = new Set<string>();
    for (const [i, model] of catalog.models.entries()) {
      if (model.defaultQuality && !model.qualities?.includes(model.defaultQuality)) {
        ctx.addIssue({
          code: 'custom',
          path: ['models', i, 'defaultQuality'],
          message: `defaultQuality ${model.defaultQuality} is not one of the model's qualities`,
        });
      }
      for (const problem of actionRouteProblems(model)) {
        ctx.addIssue({ code: 'custom', path: ['models', i, problem.field], message: problem.message });
      }
      if (seen.has(model.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['models', i, 'id'],
          message: `duplicate model id ${model.id}`,
        });
      }
      seen.add(model.id);
    }
    // An alias names exactly one model: never another model's id, nor an alias listed twice.
    const named = new Map(catalog.models.map((model) => [model.id, `model ${model.id}`]));
    for (const [i, model] of catalog.models.entries()) {
      for (const [j, alias] of model.aliases.entries()) {
        const taken = named.get(alias);
        if (taken !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['models', i, 'aliases', j],
            message: `alias ${alias} of ${model.id} is already the id or an alias of ${taken}`,
          });
        }
        named.set(alias, `model ${model.id}`);
      }
    }
    if (!seen.has(DEFAULT_MODEL_ID)) {
      ctx.addIssue({
        code: 'custom',
        path: ['models'],
        message: `the catalog must define ${DEFAULT_MODEL_ID}`,
      });
    }
  });

export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

/** What an action's route may not be: a model to generate with (modes other than edit, aliases, the default). */
function actionRouteProblems(
  model: z.infer<typeof catalogEntrySchema>,
): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  if (model.maxScale !== undefined && model.action !== 'upscale')
    problems.push({
      field: 'maxScale',
      message: 'maxScale is only for an upscale route (action: "upscale")',
    });
  if (model.action === undefined) return problems;
  if (model.modes.length !== 1 || model.modes[0] !== 'edit')
    problems.push({ field: 'modes', message: `an action's route takes modes ["edit"] (the picked image)` });
  if (model.aliases.length > 0)
    problems.push({ field: 'aliases', message: `an action's route has no aliases` });
  if (model.id === DEFAULT_MODEL_ID)
    problems.push({
      field: 'id',
      message: `${DEFAULT_MODEL_ID} is the default model, not an action's route`,
    });
  return problems;
}

/** A model callers generate with (not an action's route): what the model lists show. */
export const isGenerationModel = (model: Pick<CatalogEntry, 'action'>): boolean => model.action === undefined;
export type CatalogFile = z.input<typeof catalogFileSchema>;
