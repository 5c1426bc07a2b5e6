import type { GenerateBody } from '../../base/contract/generate-body.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { GenerationMode } from '../../base/domain/generation-modes.js';
import type { ActionSettings } from '../../base/domain/image-actions.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import type { StageTimeline } from '../../base/observability/stage-timing.js';
import type { Catalog, CatalogEntry } from '../../capabilities/catalog/index.js';
import { DEFAULT_MODEL_ID, generationModels } from '../../capabilities/catalog/index.js';

/** A generate request after validation against the catalog. */
export interface GenerateRequest {
  prompt: string;
  model: CatalogEntry;
  mode: GenerationMode;
  aspect: string;
  /**
   * An edit or fusion that names no aspect keeps the (first) reference's shape: `aspect` is then the
   * model's ratio nearest the reference, set once the reference's size is known.
   */
  keepReferenceAspect?: boolean;
  imageSize: ImageSize;
  /** The quality sent upstream (the request's, else the model's default); absent: none (auto). */
  quality?: ImageQuality;
  count: number;
  imageUrls: string[];
  /** An edit's mask (models with `masks`): its fully transparent pixels say where to edit. */
  maskUrl?: string;
  /** Where the task records are POSTed when each task ends (webhooks); its address is checked later, with DNS. */
  callbackUrl?: string;
  /** Partial frames each task should store while it renders (the OpenAI routes' `partial_images`). */
  partialImages?: number;
  /** The work stores nothing (its key's setting, or `Atelier-Retention: none`): docs/operations.md, Zero-retention. */
  zeroRetention?: boolean;
  /**
   * The work this one refines (lineage): the parent generation and the image of it refined, which
   * is also the request's first reference. Absent: a new work.
   */
  parent?: { id: string; taskId: string };
  /** The turn's instruction as the caller phrased it (a refinement's; the prompt is what is sent). */
  instruction?: string;
  /** The first image's seed (image i: seed + i), on models with `seeds`; filled in when absent. */
  seed?: number;
  /** The action on the parent image this generation runs (its model is the action's route). */
  action?: ActionSettings | { name: 'reroll' };
}

/** `wanted` when the list has it, else the list's first entry. */
const preferred = <T extends string>(list: readonly T[], wanted: T): T =>
  list.includes(wanted) ? wanted : (list[0] ?? wanted);

/** A refusal naming the field to blame (the message starts with its name). */
const invalid = (message: string, field?: string) => new InvalidInput(message, field);

/** An absolute http(s) URL, or the refusal naming `field`. */
function checkHttpUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} is not an absolute URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(`${field} must be an http(s) URL`, field);
  return url;
}

/**
 * Checks a generate body the contract's schema has validated (spec §2.1, DESIGN.md §2) against
 * what a schema cannot know: the catalog (model, and the mode, aspect, size and count it takes)
 * and the references the mode needs; then the addresses (imageUrls, callbackUrl). A value the
 * model does not support is a 400 that names the field. Fills in the defaults.
 */
export function checkGenerateRequest(
  body: GenerateBody,
  catalog: Catalog,
  /** The action's route this request may run on (an action's own request); absent: a generation. */
  action?: string,
): GenerateRequest {
  const prompt = body.prompt.trim();
  const model = checkModel(body, catalog);
  if (model.action !== undefined && model.action !== action) {
    throw invalid(
      `model ${model.id} is the route of the action ${model.action}: act on a work with POST /api/v1/generations/{id}/actions`,
      'model',
    );
  }
  const seed = body.seed ?? undefined;
  if (seed !== undefined && !model.seeds) {
    const takers = generationModels(catalog).filter((m) => m.seeds);
    throw invalid(
      `seed: model ${model.id} takes no seed (its upstream has none); models that do: ${takers.map((m) => m.id).join(', ') || 'none'}`,
      'seed',
    );
  }
  const mode = body.mode ?? 'text';
  if (!model.modes.includes(mode)) {
    throw invalid(
      `model ${model.id} does not support mode ${mode} (supported: ${model.modes.join(', ')})`,
      'mode',
    );
  }
  const { aspect, imageSize, quality, count } = checkShape(body, model, catalog);
  const imageUrls = checkReferences(body, model, mode);
  const maskUrl = checkMask(body, model, mode, catalog);
  const callbackUrl = body.callbackUrl ?? undefined;
  if (callbackUrl !== undefined) {
    const url = checkHttpUrl(callbackUrl, 'callbackUrl');
    if (url.username !== '' || url.password !== '')
      throw invalid('callbackUrl must not contain credentials', 'callbackUrl');
  }

  return {
    prompt,
    model,
    mode,
    aspect,
    keepReferenceAspect: mode !== 'text' && (body.aspect === undefined || body.aspect === null),
    imageSize,
    ...(quality !== undefined ? { quality } : {}),
    count,
    imageUrls: [...imageUrls],
    ...(maskUrl !== undefined ? { maskUrl } : {}),
    ...(callbackUrl !== undefined ? { callbackUrl } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** The catalog's model the body names (the default model when none). */
function checkModel(body: GenerateBody, catalog: Catalog): CatalogEntry {
  const modelId = body.model ?? DEFAULT_MODEL_ID;
  const model = catalog.get(modelId);
  if (!model) {
    throw invalid(
      `Unknown model "${modelId}"; available models: ${generationModels(catalog)
        .map((m) => m.id)
        .join(', ')}`,
      'model',
    );
  }
  return model;
}

/** The aspect, size, quality and count, each one the model takes (defaults filled in). */
function checkShape(body: GenerateBody, model: CatalogEntry, catalog: Catalog) {
  // Defaults are the spec's (1:1, 2K) where the model offers them, else the model's first choice,
  // so a request that names only a prompt works on every model of the catalog.
  const aspect = body.aspect ?? preferred(model.aspects, '1:1');
  if (!model.aspects.includes(aspect)) {
    throw invalid(
      `aspect "${aspect}" is not supported by model ${model.id}; accepted: ${model.aspects.join(', ')}`,
      'aspect',
    );
  }

  const imageSize = body.imageSize ?? preferred(model.sizes, '2K');
  if (!model.sizes.includes(imageSize)) {
    throw invalid(
      `imageSize ${imageSize} is not supported by model ${model.id}; accepted: ${model.sizes.join(', ')}`,
      'imageSize',
    );
  }

  const quality = body.quality ?? model.defaultQuality;
  if (body.quality != null && !model.qualities?.includes(body.quality)) {
    throw invalid(
      model.qualities
        ? `quality ${body.quality} is not offered by model ${model.id}; accepted: ${model.qualities.join(', ')}`
        : `quality: model ${model.id} takes no quality (models that do: ${
            generationModels(catalog)
              .filter((m) => m.qualities)
              .map((m) => m.id)
              .join(', ') || 'none'
          })`,
      'quality',
    );
  }

  const count = body.count ?? 1;
  if (count < 1 || count > model.maxCount) {
    throw invalid(`count must be between 1 and ${model.maxCount} for model ${model.id}`, 'count');
  }
  return { aspect, imageSize, quality, count };
}

/** The references the mode needs: absolute http(s) URLs, as many as the mode takes. */
function checkReferences(body: GenerateBody, model: CatalogEntry, mode: GenerationMode): string[] {
  const imageUrls = body.imageUrls ?? [];
  for (const [i, value] of imageUrls.entries()) checkHttpUrl(value, `imageUrls[${i}]`);
  if (mode === 'text' && imageUrls.length > 0) {
    throw invalid('mode text takes no imageUrls; use mode edit with one reference image', 'imageUrls');
  }
  if (mode === 'edit' && imageUrls.length !== 1)
    throw invalid('mode edit needs exactly one URL in imageUrls', 'imageUrls');
  if (mode === 'fusion' && (imageUrls.length < 2 || imageUrls.length > model.maxReferences)) {
    throw invalid(`mode fusion needs between 2 and ${model.maxReferences} URLs in imageUrls`, 'imageUrls');
  }
  return imageUrls;
}

/** An edit's mask URL, when the model takes masks; undefined without one. */
function checkMask(
  body: GenerateBody,
  model: CatalogEntry,
  mode: GenerationMode,
  catalog: Catalog,
): string | undefined {
  const maskUrl = body.maskUrl ?? undefined;
  if (maskUrl !== undefined) {
    checkHttpUrl(maskUrl, 'maskUrl');
    if (mode !== 'edit')
      throw invalid(`maskUrl is only taken by mode edit (this is mode ${mode})`, 'maskUrl');
    if (!model.masks) {
      const takers = generationModels(catalog)
        .filter((m) => m.masks)
        .map((m) => m.id);
      throw invalid(
        `maskUrl: model ${model.id} does not take a mask (models that do: ${takers.join(', ') || 'none'})`,
        'maskUrl',
      );
    }
  }
  return maskUrl;
}

/** What an edge adds to a generate body: partial frames, the caller's trace, zero-retention. */
export interface GenerateOptions {
  partialImages?: number | undefined;
  traceparent?: string | undefined;
  /** `Atelier-Retention: none`: the work stores nothing (a key that stores nothing sets it too). */
  zeroRetention?: boolean | undefined;
  /** The request's stage marks (ATELIER_STAGE_TIMING, bench row S1); absent when off. */
  timeline?: StageTimeline | undefined;
}
