import type { CatalogModel, Models } from '../../base/contract/catalog.js';
import { UPSCALE_FACTORS, VARY_STRENGTHS } from '../../base/domain/image-actions.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import { type Catalog, generationModels, maxImageCostOf } from './catalog.js';
import { type CatalogEntry, DEFAULT_MODEL_ID } from './catalog-file.js';

type Facts = Omit<CatalogModel, 'id' | 'object' | 'created' | 'owned_by' | 'name'>;

/** No input: the image part of a reservation (the input adds its own, see docs/operations.md). */
const NO_INPUT = { promptChars: 0, references: 0 };

const bySize = (sizes: readonly ImageSize[], figure: (size: ImageSize) => number | undefined) =>
  Object.fromEntries(
    sizes.flatMap((size) => {
      const value = figure(size);
      return value === undefined ? [] : [[size, value]];
    }),
  );

/** The model's price as clients read it: its own route's figures, and the most any route can cost. */
function priceOf(model: CatalogEntry): Facts['price'] {
  const price = model.price;
  if (!price) return null;
  const maxAt = (quality?: ImageQuality) =>
    bySize(model.sizes, (size) => maxImageCostOf(model, size, NO_INPUT, quality));
  return {
    currency: 'USD',
    published: price.published,
    asOf: price.asOf ?? null,
    source: price.source ?? null,
    perImage: bySize(model.sizes, (size) => price.perImage?.[size]),
    maxPerImage: maxAt(),
    maxPerImageByQuality: Object.fromEntries(
      (model.qualities ?? []).map((quality) => [quality, maxAt(quality)]),
    ),
    perMillionTokens: price.perMillionTokens ?? null,
    maxTokensPerReference: price.maxTokensPerReference ?? null,
  };
}

/**
 * What the catalog knows about a model beyond its id: modes, aspects, sizes, caps, masks,
 * qualities, prices and lifecycle. Every model list (/api/v1, OpenAI's /v1, Gemini's /v1beta)
 * carries these same facts, so clients, the website and agents read one source.
 */
export function modelFacts(model: CatalogEntry): Facts {
  const lifecycle = model.lifecycle;
  return {
    modes: model.modes,
    aspects: model.aspects,
    sizes: model.sizes,
    maxCount: model.maxCount,
    maxReferences: model.maxReferences,
    masks: model.masks,
    seeds: model.seeds,
    qualities: model.qualities ?? [],
    defaultQuality: model.defaultQuality ?? null,
    price: priceOf(model),
    lifecycle: {
      released: lifecycle?.released ?? null,
      deprecated: lifecycle?.deprecated ?? null,
      shutdown: lifecycle?.shutdown ?? null,
      replacement: lifecycle?.replacement ?? null,
    },
  };
}

/** One model as GET /models answers it. */
export const catalogModel = (model: CatalogEntry): CatalogModel => ({
  id: model.id,
  object: 'model' as const,
  created: 0,
  owned_by: model.provider,
  name: model.displayName ?? model.id,
  ...modelFacts(model),
});

/** The catalog as GET /models answers it, on /api/v1 and on the OpenAI-compatible /v1 alike. */
export function modelList(catalog: Catalog): Models {
  return {
    object: 'list',
    data: generationModels(catalog).map(catalogModel),
    default_model: DEFAULT_MODEL_ID,
    actions: actionList(catalog),
  };
}

/** The actions offered: reroll always (on the work's own model), the others once per configured route. */
function actionList(catalog: Catalog): NonNullable<Models['actions']> {
  const routes = catalog.models.flatMap((model) => {
    if (model.action === undefined) return [];
    return [
      {
        action: model.action,
        model: model.id,
        name: model.displayName ?? model.id,
        ...(model.action === 'upscale'
          ? { scales: UPSCALE_FACTORS.filter((factor) => factor <= (model.maxScale ?? 4)) }
          : {}),
        ...(model.action === 'vary' ? { strengths: [...VARY_STRENGTHS] } : {}),
        seeds: model.seeds,
        price: priceOf(model),
      },
    ];
  });
  const seeds = generationModels(catalog).some((model) => model.seeds);
  return [{ action: 'reroll', model: null, name: 'Reroll', seeds }, ...routes];
}
