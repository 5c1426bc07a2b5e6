import { createHash } from 'node:crypto';
import type { ActionBody } from '../../base/contract/actions.js';
import type { GenerateBody } from '../../base/contract/generate-body.js';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import {
  ACTION_SETTING_FIELDS,
  type ActionSettings,
  EXPAND_FACTOR_MAX,
  MAX_ACTION_SIDE,
  ROUTED_ACTIONS,
  type RoutedAction,
  SETTINGS_OF,
} from '../../base/domain/image-actions.js';
import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import { ASPECT_PATTERN, type ImageSize } from '../../base/domain/image-sizes.js';
import { actionRoutes, type Catalog, type CatalogEntry } from '../../capabilities/catalog/index.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { expandCanvas, expandedSize } from '../../infra/images/expand-canvas.js';
import { inspectImageBuffer } from '../../infra/images/inspect-image.js';
import type { GenerationsTable } from '../../infra/store/schema/generations.js';
import type { GenerateRequest } from './generate-request.js';
import { findParent, type ParentImage, type ParentReads } from './lineage.js';

/**
 * Actions on a finished image (issue 45, docs/api.md "Actions"): each becomes a generate request
 * whose parent is the picked image and whose model is the action's catalog route (`reroll`: the
 * work's own model and settings, a new seed). Budgets, capacity, idempotency, webhooks and history
 * then treat it as any generation.
 */

/** The settings of a work an action starts from, as its generation row keeps them. */
export type WorkSettings = Pick<
  GenerationsTable,
  | 'id'
  | 'prompt'
  | 'model'
  | 'mode'
  | 'aspect'
  | 'aspect_from_reference'
  | 'image_size'
  | 'ref_keys_json'
  | 'mask_key'
  | 'quality'
  | 'action'
  | 'action_json'
  | 'parent_task_id'
>;

export interface ActionDeps {
  catalog: Catalog;
  parents: ParentReads & {
    settingsOf(accountId: string, generationId: string): Promise<WorkSettings | undefined>;
  };
  blobs: BlobStore;
  blobUrl(key: string): string;
}

/** An action planned as a generate request: its body, parent, the action recorded and the route's action. */
export interface PlannedAction {
  body: GenerateBody;
  parent: ParentImage;
  action: NonNullable<GenerateRequest['action']>;
  /** The routed action the body's model must serve; absent for a reroll of a generation. */
  route?: RoutedAction;
  /** The lineage's instruction: what was done, in words ("Upscale ×2"). */
  instruction: string;
}

const invalid = (message: string, field: string) => new InvalidInput(message, field);

/** Plans `body.action` on the image `workId` names (a work `gen_…` or one of its images `tsk_…`). */
export async function planAction(
  deps: ActionDeps,
  accountId: string,
  workId: string,
  body: ActionBody,
): Promise<PlannedAction> {
  for (const field of ACTION_SETTING_FIELDS) {
    if (body[field] != null && !SETTINGS_OF[body.action].includes(field))
      throw invalid(`${field} is not taken by action ${body.action}`, field);
  }
  const parent = await pickedImage(deps, accountId, workId, body.taskId ?? undefined);
  const work = await deps.parents.settingsOf(accountId, parent.id);
  if (!work) throw new NotFound('Work not found');
  if (body.action === 'reroll') return reroll(deps, accountId, work, parent, body);
  const route = routeFor(deps.catalog, body.action, body.model ?? undefined);
  const common = {
    model: route.id,
    mode: 'edit' as const,
    imageSize: sizeOn(route, work.image_size),
    ...(body.seed == null ? {} : { seed: body.seed }),
    ...(body.callbackUrl == null ? {} : { callbackUrl: body.callbackUrl }),
  };
  const size = await pickedSize(deps, parent);
  switch (body.action) {
    case 'upscale':
      return upscale(route, work, parent, size, body, common);
    case 'vary': {
      const strength = body.strength ?? 'subtle';
      return {
        body: {
          ...common,
          prompt: work.prompt,
          imageUrls: [parent.imageUrl],
          count: body.count ?? 1,
        },
        parent,
        action: { name: 'vary', strength },
        route: 'vary',
        instruction: `Vary (${strength})`,
      };
    }
    case 'expand':
      return expand(deps, route, work, parent, size, body, common);
    case 'remove_background':
      return {
        body: { ...common, prompt: work.prompt, imageUrls: [parent.imageUrl] },
        parent,
        action: { name: 'remove_background' },
        route: 'remove_background',
        instruction: 'Remove background',
      };
  }
}

/** The image acted on: the account's, finished; another account's reads as an unknown one (404). */
async function pickedImage(
  deps: ActionDeps,
  accountId: string,
  workId: string,
  taskId: string | undefined,
): Promise<ParentImage> {
  if (taskId !== undefined && !taskId.startsWith('tsk_'))
    throw invalid('taskId must be an image id (tsk_…) of the work', 'taskId');
  let parent: ParentImage;
  try {
    parent = await findParent(deps.parents, accountId, taskId ?? workId);
  } catch (error) {
    if (error instanceof InvalidInput && /no (work|image) of this account/.test(error.message))
      throw new NotFound(taskId === undefined ? 'Work not found' : 'Image not found in this work');
    if (error instanceof InvalidInput)
      throw invalid('the image has not finished yet: act on it once it has completed', 'id');
    throw error;
  }
  if (taskId !== undefined && workId !== parent.id && workId !== taskId)
    throw new NotFound('Image not found in this work');
  return parent;
}

/** The route of `action`: the one named (`model`), else the first configured; refused when none. */
function routeFor(catalog: Catalog, action: RoutedAction, model: string | undefined): CatalogEntry {
  const routes = actionRoutes(catalog, action);
  if (routes.length === 0)
    throw invalid(
      `action ${action} is not configured on this deployment (GET /api/v1/models lists the actions)`,
      'action',
    );
  if (model === undefined) return routes[0] as CatalogEntry;
  const named = routes.find((route) => route.id === model);
  if (!named)
    throw invalid(
      `model ${model} is not a route of action ${action}; its routes: ${routes.map((r) => r.id).join(', ')}`,
      'model',
    );
  return named;
}

/** `wanted` when the route offers it, else its largest size. */
const sizeOn = (route: CatalogEntry, wanted: ImageSize): ImageSize =>
  route.sizes.includes(wanted) ? wanted : (route.sizes.at(-1) ?? wanted);

/** The picked image's size: its task's record, else read from the stored file. */
async function pickedSize(deps: ActionDeps, parent: ParentImage): Promise<{ width: number; height: number }> {
  if (parent.width && parent.height) return { width: parent.width, height: parent.height };
  const bytes = parent.blobKey ? await deps.blobs.get(parent.blobKey) : undefined;
  if (!bytes) throw new NotFound('The image’s file is gone');
  return inspectImageBuffer(bytes);
}

type Common = Pick<GenerateBody, 'model' | 'mode' | 'imageSize' | 'seed' | 'callbackUrl'>;

/** The image at ×2 or ×4 its pixels per side, within the route's maxScale and MAX_ACTION_SIDE. */
function upscale(
  route: CatalogEntry,
  work: WorkSettings,
  parent: ParentImage,
  size: { width: number; height: number },
  body: ActionBody,
  common: Common,
): PlannedAction {
  const scale = body.scale ?? 2;
  const maxScale = route.maxScale ?? 4;
  if (scale > maxScale)
    throw invalid(`scale ${scale} is above the ${route.id} route's maxScale ${maxScale}`, 'scale');
  const side = Math.max(size.width, size.height) * scale;
  if (side > MAX_ACTION_SIDE)
    throw invalid(
      `scale ${scale} would make a ${side}-pixel side, above the ${MAX_ACTION_SIDE} limit`,
      'scale',
    );
  const megapixels = (size.width * size.height * scale * scale) / 1e6;
  const label: ImageSize = megapixels <= 1.5 ? '1K' : megapixels <= 6 ? '2K' : '4K';
  return {
    body: { ...common, imageSize: sizeOn(route, label), prompt: work.prompt, imageUrls: [parent.imageUrl] },
    parent,
    action: { name: 'upscale', scale },
    route: 'upscale',
    instruction: `Upscale ×${scale}`,
  };
}

/** A larger canvas, the picked image centred, the new border to paint (a masked edit where the route takes masks). */
async function expand(
  deps: ActionDeps,
  route: CatalogEntry,
  work: WorkSettings,
  parent: ParentImage,
  size: { width: number; height: number },
  body: ActionBody,
  common: Common,
): Promise<PlannedAction> {
  const aspect = body.aspect ?? undefined;
  const match = aspect === undefined ? null : ASPECT_PATTERN.exec(aspect);
  if (aspect !== undefined && !match) throw invalid('aspect must look like W:H', 'aspect');
  const grow = match
    ? { aspect: { w: Number(match[1]), h: Number(match[2]) } }
    : { factor: body.factor ?? 1.5 };
  const target = expandedSize(size.width, size.height, grow);
  if (Math.max(target.width, target.height) > MAX_ACTION_SIDE)
    throw invalid(
      `the expanded canvas would have a side above ${MAX_ACTION_SIDE} pixels`,
      match ? 'aspect' : 'factor',
    );
  if (target.width === size.width && target.height === size.height)
    throw invalid(
      `aspect ${aspect}: the image already has this shape (or is wider, by ${EXPAND_FACTOR_MAX}× at most)`,
      'aspect',
    );
  const bytes = parent.blobKey ? await deps.blobs.get(parent.blobKey) : undefined;
  if (!bytes) throw new NotFound('The image’s file is gone');
  const made = await expandCanvas(bytes, size, target);
  const [canvasUrl, maskUrl] = await Promise.all([store(deps, made.canvas), store(deps, made.mask)]);
  const factor = Math.round(Math.max(target.width / size.width, target.height / size.height) * 100) / 100;
  return {
    body: {
      ...common,
      prompt: work.prompt,
      imageUrls: [canvasUrl],
      ...(route.masks ? { maskUrl } : {}),
    },
    parent,
    action: { name: 'expand', factor, ...(aspect === undefined ? {} : { aspect }) },
    route: 'expand',
    instruction: aspect === undefined ? `Expand ×${factor}` : `Expand to ${aspect}`,
  };
}

/** Stores a PNG an action made under its content's name (the same bytes, one file); its URL. */
async function store(deps: ActionDeps, png: Buffer): Promise<string> {
  const key = `actions/${createHash('sha256').update(png).digest('hex')}.png`;
  if (!(await deps.blobs.stat(key))) await deps.blobs.put(key, png, 'image/png');
  return deps.blobUrl(key);
}

/**
 * The work again with its own settings and a new seed. A work an action made is rerolled as that
 * action again on the same image (another variation of it, not a variation of the variation).
 */
async function reroll(
  deps: ActionDeps,
  accountId: string,
  work: WorkSettings,
  picked: ParentImage,
  body: ActionBody,
): Promise<PlannedAction> {
  const routed = ROUTED_ACTIONS.find((a) => a === work.action);
  const source =
    routed && work.parent_task_id ? await findParent(deps.parents, accountId, work.parent_task_id) : picked;
  const quality = IMAGE_QUALITIES.find((q) => q === work.quality);
  const refs = JSON.parse(work.ref_keys_json) as string[];
  const generation: GenerateBody = {
    prompt: work.prompt,
    model: work.model,
    mode: work.mode,
    ...(work.aspect_from_reference === 1 ? {} : { aspect: work.aspect }),
    imageSize: work.image_size,
    ...(quality ? { quality } : {}),
    count: body.count ?? 1,
    imageUrls: refs.map((key) => deps.blobUrl(key)),
    ...(work.mask_key ? { maskUrl: deps.blobUrl(work.mask_key) } : {}),
    ...(body.seed == null ? {} : { seed: body.seed }),
    ...(body.callbackUrl == null ? {} : { callbackUrl: body.callbackUrl }),
  };
  if (!routed) return { body: generation, parent: picked, action: { name: 'reroll' }, instruction: 'Reroll' };
  const settings = JSON.parse(work.action_json ?? '{}') as Record<string, unknown>;
  return {
    body: generation,
    parent: source,
    action: { ...settings, name: routed } as ActionSettings,
    route: routed,
    instruction: 'Reroll',
  };
}
