/**
 * fal endpoint inputs: how a catalog's `falEndpoints` entry says an endpoint takes Atelier's
 * fields, and the mapping of one request onto that input (docs/providers.md, "fal"):
 * - `size`: `image_size` (FLUX: a preset name such as `landscape_16_9`, else `{width, height}`),
 *   `aspect_ratio` (Kontext: `16:9`…), or `aspect_ratio+resolution` (Nano Banana Pro: plus `1K`/`2K`/`4K`);
 * - `references`: `image_urls` (a list), `image_url` (one), or `none`; sent as data URIs, which
 *   fal's file inputs take;
 * - one image per request (`num_images: 1`): each of a generation's `count` images is its own task,
 *   with its own seed, progress, retry and cancel;
 * - `seed`: derived from the task id (stable across resubmits), unless `seed: false`;
 * - `extraInput`: fields sent with every request (e.g. `enable_safety_checker`, `output_format`);
 * - an image tool's route (an `upscale` or `remove_background` action, e.g. `fal-ai/clarity-upscaler`,
 *   `fal-ai/birefnet/v2`): `image_url` alone, plus the factor in `scaleInput` for an upscaler and the
 *   seed where `seed` is true; no prompt, size or `num_images`.
 */
import { z } from 'zod';
import type { ProviderRequest } from './provider.js';
import { fitReferences } from './reference-fit.js';
import { seedForTask, type ToolAction, toolActionOf } from './replicate-inputs.js';

const ENDPOINT_ID = /^[a-z0-9][a-z0-9_.-]*\/[a-z0-9][a-z0-9_.-]*(?:\/[a-z0-9][a-z0-9_.-]*)*$/i;

export const falEndpointSchema = z
  .object({
    size: z.enum(['image_size', 'aspect_ratio', 'aspect_ratio+resolution']).default('image_size'),
    references: z.enum(['image_urls', 'image_url', 'none']).default('none'),
    seed: z.boolean().default(true),
    extraInput: z.record(z.string(), z.unknown()).default({}),
    /**
     * For an upscaler (an `upscale` action's route): the input its factor goes in
     * (`fal-ai/clarity-upscaler`: `upscale_factor`; `fal-ai/esrgan`: `scale`).
     */
    scaleInput: z.enum(['upscale_factor', 'scale']).optional(),
    /** The endpoint edits and fusions go to, where the app has one of its own (`…/edit`). */
    editEndpoint: z.string().regex(ENDPOINT_ID, 'owner/app[/path]').optional(),
  })
  .strict();

export type FalEndpoint = z.infer<typeof falEndpointSchema>;

/** `falEndpoints` of the catalog: endpoint id (`owner/app[/path]`) → its input shape. */
export const falEndpointsSchema = z.record(
  z.string().regex(ENDPOINT_ID, 'owner/app[/path]'),
  falEndpointSchema,
);

/** An endpoint the catalog does not describe: FLUX's text-to-image shape. */
export const DEFAULT_FAL_ENDPOINT: FalEndpoint = falEndpointSchema.parse({});

/** fal's `image_size` presets (1K class), by aspect. */
const PRESETS: Record<string, string> = {
  '1:1': 'square_hd',
  '4:3': 'landscape_4_3',
  '3:4': 'portrait_4_3',
  '16:9': 'landscape_16_9',
  '9:16': 'portrait_16_9',
};

const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** The endpoint's input for one request, or why it cannot take the request (with the catalog fix). */
export async function falInput(
  request: ProviderRequest,
  shape: FalEndpoint,
  maxInlineBytes: number,
): Promise<Record<string, unknown> | string> {
  const endpoint = request.upstreamModel;
  const tool = toolActionOf(request);
  if (tool) return toolInput(request, tool, shape, maxInlineBytes);
  const input: Record<string, unknown> = { ...shape.extraInput, prompt: request.prompt, num_images: 1 };
  const keepShape = request.keepReferenceAspect === true && request.mode !== 'text';
  if (shape.size === 'image_size') {
    const preset = request.imageSize === '1K' ? PRESETS[request.aspect] : undefined;
    if (!keepShape) input.image_size = preset ?? { width: request.width, height: request.height };
  } else {
    // An edit without a named aspect: the endpoint's default keeps the input image's shape.
    if (!keepShape) input.aspect_ratio = request.aspect;
    if (shape.size === 'aspect_ratio+resolution') input.resolution = request.imageSize;
    else if (request.imageSize !== '1K')
      return `${endpoint} makes ~1K images only; list sizes ["1K"] in its catalog entry`;
  }
  if (request.mode !== 'text') {
    if (shape.references === 'none')
      return `${endpoint} takes no reference image; remove "edit" and "fusion" from its catalog entry, or set its falEndpoints references`;
    if (shape.references === 'image_url' && request.references.length > 1)
      return `${endpoint} takes one reference image, so it cannot do fusion; remove "fusion" from its catalog entry`;
    const uris = await dataUris(request, maxInlineBytes);
    if (typeof uris === 'string') return uris;
    if (shape.references === 'image_urls') input.image_urls = uris;
    else input.image_url = uris[0];
  }
  if (shape.seed) input.seed = request.seed ?? seedForTask(request.taskId);
  return input;
}

/** The request's references as data URIs (fal's file inputs take them), within the inline budget. */
async function dataUris(request: ProviderRequest, maxInlineBytes: number): Promise<string[] | string> {
  const fitted = await fitReferences(request.references, {
    acceptedTypes: ACCEPTED_TYPES,
    budgetBytes: maxInlineBytes,
  });
  if ('error' in fitted) return fitted.error;
  return fitted.map((image) => `data:${image.contentType};base64,${image.bytes.toString('base64')}`);
}

/** An image tool's input: the picked image as `image_url`, an upscaler's factor, the seed if taken. */
async function toolInput(
  request: ProviderRequest,
  action: ToolAction,
  shape: FalEndpoint,
  maxInlineBytes: number,
): Promise<Record<string, unknown> | string> {
  const endpoint = request.upstreamModel;
  if (shape.references !== 'image_url')
    return `${endpoint} must take its image as image_url to serve ${action.name}; set its falEndpoints references`;
  if (request.references.length !== 1)
    return `${action.name} takes exactly one image (${request.references.length} given)`;
  const uris = await dataUris(request, maxInlineBytes);
  if (typeof uris === 'string') return uris;
  const input: Record<string, unknown> = { ...shape.extraInput, image_url: uris[0] };
  if (action.name === 'upscale') {
    if (!shape.scaleInput)
      return `${endpoint} has no scaleInput in its falEndpoints entry, so it cannot upscale by ${action.scale}`;
    input[shape.scaleInput] = action.scale;
  }
  if (shape.seed) input.seed = request.seed ?? seedForTask(request.taskId);
  return input;
}
