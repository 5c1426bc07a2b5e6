import type { Catalog, CatalogEntry } from '../catalog/catalog.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import { isOneOf } from '../collections/closed-set.js';
import { generateBodySchema } from '../contract/generate-body.js';
import { parseInput } from '../contract/parse-input.js';
import { InvalidInput } from '../domain/errors.js';
import { GENERATION_MODES, type GenerationMode } from '../domain/generation-modes.js';
import { IMAGE_SIZES, type ImageSize } from '../domain/image-sizes.js';

export const MAX_PROMPT_LENGTH = 8000;

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
  count: number;
  imageUrls: string[];
  /** Where the task records are POSTed when each task ends (webhooks); its address is checked later, with DNS. */
  callbackUrl?: string;
}

/** `wanted` when the list has it, else the list's first entry. */
const preferred = <T extends string>(list: readonly T[], wanted: T): T =>
  list.includes(wanted) ? wanted : (list[0] ?? wanted);

/** A refusal naming the field to blame (the message starts with its name). */
const invalid = (message: string, field?: string) => new InvalidInput(message, field);

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`, field);
  return value;
}

/**
 * Validates a generate body (spec §2.1, DESIGN.md §2). Unknown fields are ignored; a field of the
 * wrong type, or a value the model does not support, is a 400 that names the field.
 */
export function parseGenerateRequest(body: unknown, catalog: Catalog): GenerateRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('Request body must be a JSON object');
  }
  parseInput(generateBodySchema, body);
  const input = body as Record<string, unknown>;

  if (input.prompt === undefined || input.prompt === null) throw invalid('prompt is required', 'prompt');
  if (typeof input.prompt !== 'string') throw invalid('prompt must be a string', 'prompt');
  const prompt = input.prompt.trim();
  if (prompt === '') throw invalid('prompt must not be empty', 'prompt');
  if (prompt.length > MAX_PROMPT_LENGTH)
    throw invalid(`prompt must be at most ${MAX_PROMPT_LENGTH} characters`, 'prompt');

  const modelId = optionalString(input, 'model') ?? DEFAULT_MODEL_ID;
  const model = catalog.get(modelId);
  if (!model) {
    throw invalid(
      `Unknown model "${modelId}"; available models: ${catalog.models.map((m) => m.id).join(', ')}`,
      'model',
    );
  }

  const mode = optionalString(input, 'mode') ?? 'text';
  if (!isOneOf(GENERATION_MODES, mode))
    throw invalid(`mode must be one of ${GENERATION_MODES.join(', ')}`, 'mode');
  if (!model.modes.includes(mode)) {
    throw invalid(
      `model ${model.id} does not support mode ${mode} (supported: ${model.modes.join(', ')})`,
      'mode',
    );
  }

  // Defaults are the spec's (1:1, 2K) where the model offers them, else the model's first choice,
  // so a request that names only a prompt works on every model of the catalog.
  const aspect = optionalString(input, 'aspect') ?? preferred(model.aspects, '1:1');
  if (!model.aspects.includes(aspect)) {
    throw invalid(
      `aspect "${aspect}" is not supported by model ${model.id}; accepted: ${model.aspects.join(', ')}`,
      'aspect',
    );
  }

  const imageSize = optionalString(input, 'imageSize') ?? preferred(model.sizes, '2K');
  if (!isOneOf(IMAGE_SIZES, imageSize))
    throw invalid(`imageSize must be one of ${IMAGE_SIZES.join(', ')}`, 'imageSize');
  if (!model.sizes.includes(imageSize)) {
    throw invalid(
      `imageSize ${imageSize} is not supported by model ${model.id}; accepted: ${model.sizes.join(', ')}`,
      'imageSize',
    );
  }

  let count = 1;
  if (input.count !== undefined && input.count !== null) {
    if (typeof input.count !== 'number' || !Number.isInteger(input.count))
      throw invalid('count must be an integer', 'count');
    if (input.count < 1 || input.count > model.maxCount) {
      throw invalid(`count must be between 1 and ${model.maxCount} for model ${model.id}`, 'count');
    }
    count = input.count;
  }

  let imageUrls: string[] = [];
  if (input.imageUrls !== undefined && input.imageUrls !== null) {
    if (!Array.isArray(input.imageUrls)) throw invalid('imageUrls must be an array of URLs', 'imageUrls');
    imageUrls = input.imageUrls.map((value, i) => {
      if (typeof value !== 'string') throw invalid(`imageUrls[${i}] must be a string`, `imageUrls[${i}]`);
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw invalid(`imageUrls[${i}] is not an absolute URL`, `imageUrls[${i}]`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw invalid(`imageUrls[${i}] must be an http(s) URL`, `imageUrls[${i}]`);
      return value;
    });
  }
  if (mode === 'text' && imageUrls.length > 0) {
    throw invalid('mode text takes no imageUrls; use mode edit with one reference image', 'imageUrls');
  }
  if (mode === 'edit' && imageUrls.length !== 1)
    throw invalid('mode edit needs exactly one URL in imageUrls', 'imageUrls');
  if (mode === 'fusion' && (imageUrls.length < 2 || imageUrls.length > model.maxReferences)) {
    throw invalid(`mode fusion needs between 2 and ${model.maxReferences} URLs in imageUrls`, 'imageUrls');
  }

  const callbackUrl = optionalString(input, 'callbackUrl');
  if (callbackUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(callbackUrl);
    } catch {
      throw invalid('callbackUrl is not an absolute URL', 'callbackUrl');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid('callbackUrl must be an http(s) URL', 'callbackUrl');
    if (url.username !== '' || url.password !== '')
      throw invalid('callbackUrl must not contain credentials', 'callbackUrl');
  }

  return {
    prompt,
    model,
    mode,
    aspect,
    keepReferenceAspect: mode !== 'text' && (input.aspect === undefined || input.aspect === null),
    imageSize,
    count,
    imageUrls,
    ...(callbackUrl !== undefined ? { callbackUrl } : {}),
  };
}
