import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { RoutedAction } from '../../base/domain/image-actions.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import { ASPECT_PATTERN as aspectPattern, type ImageSize } from '../../base/domain/image-sizes.js';
import { routeProblems } from '../providers/index.js';
import {
  type CatalogEntry,
  type CatalogFile,
  type capacitySchema,
  catalogFileSchema,
  isGenerationModel,
  type Lifecycle,
} from './catalog-file.js';
import { maxImageCost, type RequestInput, type RoutePrice } from './prices.js';
import { routeIdOf } from './route-id.js';

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

/**
 * The built-in catalog: the spec's four models (text and edit with masks, no fusion), all on the
 * offline renderer. The aliases (the same in catalogs/*.json) let tools that ship OpenAI's or Google's model
 * ids work unchanged: docs/openai-compat.md, "Model aliases".
 */
/** The offline renderer costs nothing: its tasks cost 0, from this price. */
const LOCAL_PRICE = { perImage: { '1K': 0, '2K': 0, '4K': 0 } };

/** An action's route on the offline renderer, free like its models. */
function localAction(
  id: string,
  displayName: string,
  action: RoutedAction,
  extra: { maxScale?: number; masks?: boolean } = {},
): CatalogFile['models'][number] {
  return {
    id,
    displayName,
    provider: 'local',
    upstreamModel: 'local-v1',
    modes: ['edit'],
    seeds: true,
    action,
    ...extra,
    price: LOCAL_PRICE,
  };
}

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
      seeds: true,
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
      seeds: true,
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
      seeds: true,
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
      seeds: true,
      price: LOCAL_PRICE,
    },
    // The actions' routes (issue 45): the offline renderer does each for real on its own pictures.
    localAction('upscale', 'Upscale', 'upscale', { maxScale: 4 }),
    localAction('vary', 'Vary', 'vary', { masks: true }),
    localAction('expand', 'Expand', 'expand', { masks: true }),
    localAction('remove-background', 'Remove background', 'remove_background'),
  ],
};

export interface Catalog {
  /** Every entry: the models callers generate with and the actions' routes (`isGenerationModel`). */
  readonly models: readonly CatalogEntry[];
  /** The model of an id or an alias (callers record the entry's canonical `id`); action routes too. */
  get(id: string): CatalogEntry | undefined;
  /** Names of the providers the catalog uses. */
  providers(): string[];
}

/** The models callers generate with, in catalog order (what the model lists show). */
export const generationModels = (catalog: Pick<Catalog, 'models'>): CatalogEntry[] =>
  catalog.models.filter(isGenerationModel);

/** The routes configured for an action, in catalog order (the first is the default). */
export const actionRoutes = (catalog: Pick<Catalog, 'models'>, action: RoutedAction): CatalogEntry[] =>
  catalog.models.filter((model) => model.action === action);

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

/** The catalog document a start reads: the file's JSON (or the built-in default) and its fingerprint. */
export interface CatalogSource {
  document: unknown;
  /** sha256 (hex) of the file's bytes, or of the built-in default's JSON. */
  sha256: string;
  /** How messages name it: `ATELIER_CATALOG (<path>)` or `built-in catalog`. */
  label: string;
}

/** Reads `ATELIER_CATALOG` (a JSON file path), or the built-in default; throws naming the problem. */
export function readCatalogSource(path: string | undefined): CatalogSource {
  if (!path) {
    const text = JSON.stringify(DEFAULT_CATALOG);
    return { document: DEFAULT_CATALOG, sha256: sha256Of(text), label: 'built-in catalog' };
  }
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`ATELIER_CATALOG: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return { document: JSON.parse(raw), sha256: sha256Of(raw), label: `ATELIER_CATALOG (${path})` };
  } catch (error) {
    throw new Error(`ATELIER_CATALOG: ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** Loads the catalog from `ATELIER_CATALOG` (a JSON file path) or the built-in default. */
export function loadCatalog(path: string | undefined, knownProviders: readonly string[]): Catalog {
  const source = readCatalogSource(path);
  return parseCatalog(source.document, knownProviders, source.label);
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
