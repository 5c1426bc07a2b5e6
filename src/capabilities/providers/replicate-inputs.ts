/**
 * Replicate model inputs: the mapping of a request onto a model's input schema (read by
 * replicate-schema.ts), the task-derived seed, and the input names a refusal may repeat.
 */
import { createHash } from 'node:crypto';
import type { ActionSettings } from '../../base/domain/image-actions.js';
import type { ProviderRequest } from './provider.js';
import { fitReferences } from './reference-fit.js';
import type { InputField, ModelInputs } from './replicate-schema.js';
import { statusSentence } from './upstream-error-text.js';
import { isRecord } from './upstream-json.js';

/** Inputs the adapter knows how to fill, in order of preference. */
const SIZE_INPUTS = ['resolution', 'image_size', 'size', 'output_resolution'];
const ARRAY_REFERENCE_INPUTS = ['image_input', 'input_images', 'images', 'image_inputs'];
const SINGLE_REFERENCE_INPUTS = ['input_image', 'image'];
const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
/** Inputs an upscaler takes its factor in (nightmareai/real-esrgan: `scale`), in order of preference. */
const SCALE_INPUTS = ['scale', 'scale_factor', 'upscale_factor', 'upscale'];
/** Inputs an image tool (upscaler, background remover) takes its one image in. */
const TOOL_IMAGE_INPUTS = ['image', 'input_image', 'img', 'image_url'];
/** The `aspect_ratio` value of Replicate image models that keeps the input image's shape. */
const MATCH_INPUT = 'match_input_image';

/** The actions an image tool (an upscaler, a background remover) serves: no prompt, one image. */
export type ToolAction = Extract<ActionSettings, { name: 'upscale' | 'remove_background' }>;

/** The request's action when it goes to an image tool rather than to an image model's edit. */
export const toolActionOf = (request: Pick<ProviderRequest, 'action'>): ToolAction | undefined =>
  request.action?.name === 'upscale' || request.action?.name === 'remove_background'
    ? request.action
    : undefined;

export interface BuiltInput {
  input: Record<string, unknown>;
  /** Inputs holding data URLs: Replicate does not echo them back verbatim, so matching skips them. */
  fileKeys: string[];
  /**
   * The input holds a seed derived from the task id, so it is unique to the task (reconciliation
   * may stop at the first match and cancel duplicates). A request's own seed is not: a caller may
   * repeat it on another task ("exactly the same again").
   */
  seeded: boolean;
  /**
   * Whether the input apart from its files tells this request from another's: an image model's
   * prompt does; an image tool's input is the image (which Replicate does not echo) and a factor,
   * so only a task-derived seed does. Reconciliation never adopts a prediction it cannot tell apart.
   */
  identifying: boolean;
}

/** A seed derived from the task id: stable across resubmits, distinct between tasks. */
export function seedForTask(taskId: string, field: InputField = {}): number {
  const raw = createHash('sha256').update(taskId).digest().readUInt32BE(0) & 0x7fffffff;
  const min = field.minimum ?? 0;
  const max = field.maximum ?? 2 ** 31 - 1;
  return max >= min ? min + (raw % (max - min + 1)) : raw;
}

/** Inputs the adapter fills: the only names a refusal's message may repeat. */
const KNOWN_INPUTS: ReadonlySet<string> = new Set([
  'prompt',
  'aspect_ratio',
  'seed',
  ...SIZE_INPUTS,
  ...ARRAY_REFERENCE_INPUTS,
  ...SINGLE_REFERENCE_INPUTS,
  ...SCALE_INPUTS,
  ...TOOL_IMAGE_INPUTS,
]);

/** The sentence for an HTTP failure; for a 422, naming the known inputs Replicate's detail refers to. */
export function refusedInputs(status: number, json: unknown): string {
  const detail = isRecord(json) && typeof json.detail === 'string' ? json.detail : '';
  const named = [...detail.matchAll(/input\.([a-z0-9_]+)/gi)]
    .map((m) => m[1] ?? '')
    .filter((name) => KNOWN_INPUTS.has(name));
  if (status !== 422 || named.length === 0) return statusSentence(status);
  return `the upstream refused input ${[...new Set(named)].join(', ')}; check the catalog entry against the model's inputs`;
}

/**
 * Maps a request onto a model's inputs; a string says what the model cannot express (and the
 * catalog fix to make).
 */
export async function buildInput(
  request: ProviderRequest,
  model: string,
  inputs: ModelInputs,
  maxInlineBytes: number,
): Promise<BuiltInput | string> {
  const { fields } = inputs;
  if (!fields.prompt) return `${model} takes no prompt input`;
  const input: Record<string, unknown> = { prompt: request.prompt };
  const fileKeys: string[] = [];

  const aspectField = fields.aspect_ratio;
  // An edit or fusion without a named aspect keeps the reference's shape where the model can say so.
  const keepShape = request.keepReferenceAspect === true && request.mode !== 'text';
  if (aspectField && keepShape && aspectField.enum?.includes(MATCH_INPUT)) {
    input.aspect_ratio = MATCH_INPUT;
  } else if (aspectField) {
    if (aspectField.enum && !aspectField.enum.includes(request.aspect)) {
      return `${model} does not take aspect ${request.aspect} (aspect_ratio: ${aspectField.enum.join(', ')}); fix its catalog entry`;
    }
    input.aspect_ratio = request.aspect;
  } else if (request.aspect !== '1:1' && !keepShape) {
    return `${model} has no aspect_ratio input, so it cannot make ${request.aspect}; list only "1:1" in its catalog entry`;
  }

  const sizeKey = SIZE_INPUTS.find((key) =>
    fields[key]?.enum?.some((v) => typeof v === 'string' && /^[124]k$/i.test(v)),
  );
  if (sizeKey) {
    const values = fields[sizeKey]?.enum ?? [];
    const value = values.find((v) => typeof v === 'string' && v.toUpperCase() === request.imageSize);
    if (value === undefined) {
      return `${model} does not make ${request.imageSize} images (${sizeKey}: ${values.join(', ')}); fix its catalog entry`;
    }
    input[sizeKey] = value;
  } else if (request.imageSize !== '1K') {
    return `${model} has no resolution input and makes ~1K images; its catalog entry must list sizes ["1K"] only (asked for ${request.imageSize})`;
  }

  if (request.mode !== 'text') {
    const arrayKey = ARRAY_REFERENCE_INPUTS.find((key) => fields[key]?.type === 'array');
    const singleKey = SINGLE_REFERENCE_INPUTS.find((key) => fields[key]?.type === 'string');
    const key = request.mode === 'fusion' ? arrayKey : (arrayKey ?? singleKey);
    if (!key) {
      return request.mode === 'fusion'
        ? `${model} takes at most one reference image, so it cannot do fusion; remove "fusion" from its catalog entry`
        : `${model} takes no reference image, so it cannot edit; remove "edit" from its catalog entry`;
    }
    const maxItems = fields[key]?.maxItems;
    if (maxItems !== undefined && request.references.length > maxItems) {
      return `${model} takes at most ${maxItems} reference images (${request.references.length} given); lower maxReferences in its catalog entry`;
    }
    const fitted = await fitReferences(request.references, {
      acceptedTypes: ACCEPTED_TYPES,
      budgetBytes: maxInlineBytes,
    });
    if ('error' in fitted) return fitted.error;
    const urls = fitted.map((image) => `data:${image.contentType};base64,${image.bytes.toString('base64')}`);
    input[key] = key === arrayKey ? urls : urls[0];
    fileKeys.push(key);
  }

  return finishInput(request, model, inputs, input, fileKeys, true);
}

/**
 * Adds the seed where the model takes one and checks the model's required inputs are all there;
 * `prompted`: the input holds the request's prompt (it tells requests apart).
 */
function finishInput(
  request: ProviderRequest,
  model: string,
  inputs: ModelInputs,
  input: Record<string, unknown>,
  fileKeys: string[],
  prompted: boolean,
): BuiltInput | string {
  const seedField = inputs.fields.seed;
  const takesSeed = seedField?.type === 'integer';
  if (takesSeed) {
    const seed = request.seed ?? seedForTask(request.taskId, seedField);
    const { minimum = 0, maximum = 2 ** 31 - 1 } = seedField;
    if (seed < minimum || seed > maximum)
      return `${model} takes seeds ${minimum} to ${maximum} only (asked for ${seed}); set "seeds": false in its catalog entry`;
    input.seed = seed;
  }
  const missing = inputs.required.filter((key) => !(key in input));
  if (missing.length > 0) return `${model} requires inputs Atelier does not provide: ${missing.join(', ')}`;
  const seeded = takesSeed && request.seed === undefined;
  return { input, fileKeys, seeded, identifying: prompted || seeded };
}

/**
 * The input of an image tool's route (an `upscale` or `remove_background` action): the picked image
 * alone (nightmareai/real-esrgan, 851-labs/background-remover: `image`), an upscale's factor in the
 * model's scale input, and the seed where the model takes one; no prompt, no aspect, no size.
 */
export async function buildToolInput(
  request: ProviderRequest,
  action: ToolAction,
  model: string,
  inputs: ModelInputs,
  maxInlineBytes: number,
): Promise<BuiltInput | string> {
  const { fields } = inputs;
  const imageKey = TOOL_IMAGE_INPUTS.find((key) => fields[key]?.type === 'string');
  if (!imageKey)
    return `${model} takes no image input (${TOOL_IMAGE_INPUTS.join(', ')}); it cannot be an action's route`;
  const reference = request.references[0];
  if (!reference || request.references.length > 1)
    return `${action.name} takes exactly one image (${request.references.length} given)`;
  const fitted = await fitReferences([reference], {
    acceptedTypes: ACCEPTED_TYPES,
    budgetBytes: maxInlineBytes,
  });
  if ('error' in fitted) return fitted.error;
  const image = fitted[0] as (typeof fitted)[number];
  const input: Record<string, unknown> = {
    [imageKey]: `data:${image.contentType};base64,${image.bytes.toString('base64')}`,
  };
  if (action.name === 'upscale') {
    const scaleKey = SCALE_INPUTS.find((key) => ['number', 'integer'].includes(fields[key]?.type ?? ''));
    if (!scaleKey)
      return `${model} takes no scale input (${SCALE_INPUTS.join(', ')}); it cannot upscale by ${action.scale}`;
    const { minimum, maximum } = fields[scaleKey] ?? {};
    if (
      (minimum !== undefined && action.scale < minimum) ||
      (maximum !== undefined && action.scale > maximum)
    )
      return `${model} does not upscale by ${action.scale} (${scaleKey}: ${minimum ?? '…'} to ${maximum ?? '…'}); lower maxScale in its catalog entry`;
    input[scaleKey] = action.scale;
  }
  return finishInput(request, model, inputs, input, [imageKey], false);
}
