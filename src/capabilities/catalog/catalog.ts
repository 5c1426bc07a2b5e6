import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GENERATION_MODES } from '../../base/domain/generation-modes.js';
import { IMAGE_QUALITIES, type ImageQuality } from '../../base/domain/image-qualities.js';
import {
  ASPECT_PATTERN as aspectPattern,
  IMAGE_SIZES,
  type ImageSize,
} from '../../base/domain/image-sizes.js';
import { compatibleUpstreamsSchema, falEndpointsSchema, routeProblems } from '../providers/index.js';
import { maxImageCost, type RequestInput, type RoutePrice, routePriceSchema } from './prices.js';
import { routeIdOf } from './route-id.js';

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
const capacitySchema = z
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

const catalogEntrySchema = z
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
  })
  .strict();

/** One upstream route of a model: a provider and that provider's name for the model. */
export interface UpstreamRoute {
  /** The route's stable id (route-id.ts): what a task runs on; its price and pool limits are found by it. */
  id: string;
  provider: string;
  upstreamModel: string;
  lifecycle?: Lifecycle | undefined;
  price?: RoutePrice | undefined;
  capacity?: z.infer<typeof capacitySchema> | undefined;
}

/** A model's routes in the order they are tried: its own, then its fallbacks. */
export const routesOf = (model: CatalogEntry): UpstreamRoute[] => [
  {
    id: routeIdOf(model),
    provider: model.provider,
    upstreamModel: model.upstreamModel,
    lifecycle: model.lifecycle,
    price: model.price,
    capacity: model.capacity,
  },
  ...model.fallbacks.map((fallback) => ({ id: routeIdOf(fallback), ...fallback })),
];

/**
 * The most one image of the model can cost at `size`: the highest of its routes' maxima (a task
 * may fall back to any of them). What admission reserves per image against a budget.
 */
export const maxImageCostOf = (
  model: CatalogEntry,
  size: ImageSize,
  input: RequestInput,
  /** The request's quality (else the model's default): none reserves at the highest. */
  quality?: ImageQuality,
): number => Math.max(0, ...routesOf(model).map((route) => maxImageCost(route.price, size, input, quality)));

const catalogFileSchema = z
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
export type CatalogFile = z.input<typeof catalogFileSchema>;

/**
 * The built-in catalog: the spec's four models (text and edit with masks, no fusion), all on the
 * offline renderer. The aliases (the same in catalogs/*.json) let tools that ship OpenAI's or Google's model
 * ids work unchanged: docs/openai-compat.md, "Model aliases".
 */
/** The offline renderer costs nothing: its tasks cost 0, from this price. */
const LOCAL_PRICE = { perImage: { '1K': 0, '2K': 0, '4K': 0 } };

export const DEFAULT_CATALOG: CatalogFile = {
  models: [
    {
      id: 'base-image-2',
      aliases: ['dall-e-3', 'gemini-3.1-flash-image', 'gemini-3.1-flash-image-preview'],
      displayName: 'Base Image 2',
      provider: 'local',
      upstreamModel: 'local-v1',
      modes: ['text', 'edit'],
      masks: true,
      price: LOCAL_PRICE,
    },
    {
      id: 'pro',
      aliases: ['gpt-image-1', 'gpt-image-1.5', 'gemini-3-pro-image', 'gemini-3-pro-image-preview'],
      displayName: 'Pro',
      provider: 'local',
      upstreamModel: 'local-v1',
      modes: ['text', 'edit'],
      masks: true,
      price: LOCAL_PRICE,
    },
    {
      id: 'flash2',
      aliases: ['gpt-image-1-mini', 'gemini-2.5-flash-image'],
      displayName: 'Flash 2',
      provider: 'local',
      upstreamModel: 'local-v1',
      modes: ['text', 'edit'],
      masks: true,
      price: LOCAL_PRICE,
    },
    {
      id: 'flash',
      aliases: ['dall-e-2'],
      displayName: 'Flash',
      provider: 'local',
      upstreamModel: 'local-v1',
      modes: ['text', 'edit'],
      masks: true,
      price: LOCAL_PRICE,
    },
  ],
};

export interface Catalog {
  readonly models: readonly CatalogEntry[];
  /** The model of an id or an alias (callers record the entry's canonical `id`). */
  get(id: string): CatalogEntry | undefined;
  /** Names of the providers the catalog uses. */
  providers(): string[];
}

/** Validates a catalog document; throws an Error naming every problem. */
export function parseCatalog(input: unknown, knownProviders: readonly string[], source = 'catalog'): Catalog {
  const parsed = catalogFileSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`${source} is invalid:\n  ${problems.join('\n  ')}`);
  }
  const unknown = parsed.data.models.flatMap((m) =>
    routesOf(m)
      .filter((route) => !knownProviders.includes(route.provider))
      .map(
        (route) =>
          `model ${m.id}: unknown provider "${route.provider}" (known: ${knownProviders.join(', ')})`,
      ),
  );
  // A route may not ask what its declared upstream does not offer (edits, masks, fusion).
  const asks = parsed.data.models.flatMap((m) =>
    routesOf(m).map((route) => ({ ...route, modelId: m.id, modes: m.modes, masks: m.masks })),
  );
  unknown.push(...routeProblems(asks, parsed.data.upstreams, parsed.data.falEndpoints));
  if (unknown.length > 0) throw new Error(`${source} is invalid:\n  ${unknown.join('\n  ')}`);
  // The operator's own servers (ComfyUI) cost nothing unless the catalog prices them.
  const free = <T extends { provider: string; price?: RoutePrice | undefined }>(route: T): T =>
    route.provider === 'comfyui' && !route.price ? { ...route, price: LOCAL_PRICE } : route;
  const models = parsed.data.models.map((m) => ({ ...free(m), fallbacks: m.fallbacks.map(free) }));
  const byId = new Map(models.flatMap((m) => [m.id, ...m.aliases].map((id) => [id, m] as const)));
  return {
    models,
    get: (id) => byId.get(id),
    providers: () => [...new Set(models.flatMap((m) => routesOf(m).map((route) => route.provider)))],
  };
}

/** Loads the catalog from `ATELIER_CATALOG` (a JSON file path) or the built-in default. */
export function loadCatalog(path: string | undefined, knownProviders: readonly string[]): Catalog {
  if (!path) return parseCatalog(DEFAULT_CATALOG, knownProviders, 'built-in catalog');
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`ATELIER_CATALOG: cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error(`ATELIER_CATALOG: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseCatalog(json, knownProviders, `ATELIER_CATALOG (${path})`);
}

/** The ratio of `aspects` nearest `width`:`height` (log distance; ties go to the first listed). */
export function nearestAspect(width: number, height: number, aspects: readonly string[]): string | undefined {
  const wanted = Math.log((width || 1) / (height || 1));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const aspect of aspects) {
    const match = aspectPattern.exec(aspect);
    if (!match) continue;
    const distance = Math.abs(Math.log(Number(match[1]) / Number(match[2])) - wanted);
    if (distance < bestDistance - 1e-9) {
      best = aspect;
      bestDistance = distance;
    }
  }
  return best;
}
