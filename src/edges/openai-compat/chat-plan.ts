import type { OpenAiChatBody } from '../../base/contract/openai-chat.js';
import { aboutReferenceField, DomainError, InvalidInput } from '../../base/domain/errors.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { type Catalog, type CatalogEntry, DEFAULT_MODEL_ID } from '../../capabilities/catalog/index.js';
import type { UploadsService } from '../../capabilities/uploads/index.js';
import { readChatTurn } from './chat-messages.js';
import { isDataUrl, storeDataUrl } from './data-url-images.js';
import type { ImagePlan, ImageRequestInput, ImageRequests } from './image-requests.js';
import { type OwnWorksDeps, ownWorkOfImage } from './own-works.js';

/** What planning a chat turn reads: the image requests' planner, uploads, and the account's works. */
export interface ChatPlanDeps extends OwnWorksDeps {
  catalog: Pick<Catalog, 'get'>;
  images: Pick<ImageRequests, 'plan'>;
  uploads: Pick<UploadsService, 'ingestFile'>;
}

/** What chat completions read beyond the image routes: the account's works, and the wait ceiling. */
export interface ChatCompletionsDeps extends OwnWorksDeps {
  waitMs: number;
}

/** A planned chat turn: the generate plan (with its parent, if any) and its reference URLs. */
export interface ChatPlan {
  plan: ImagePlan;
  urls: string[];
}

/**
 * `modalities` must ask for images: every model of the catalog makes images only, so `["text"]`
 * (or any list without image) is refused; absent means `["image", "text"]`.
 */
export function checkModalities(modalities: readonly string[] | null | undefined, model?: string): void {
  if (modalities === null || modalities === undefined) return;
  const unknown = modalities.find((m) => m !== 'image' && m !== 'text');
  if (unknown !== undefined)
    throw new InvalidInput(
      `modalities: ${unknown} is not supported; send ["image", "text"] or ["image"]`,
      'modalities',
    );
  if (!modalities.includes('image'))
    throw new InvalidInput(
      `modalities must include image: model ${model ?? '(default)'} produces images only, no text-only answer; send ["image", "text"] or ["image"]`,
      'modalities',
    );
}

/** image_config's aspect_ratio and image_size onto the model (each refusal names its field). */
function imageConfigOf(
  model: CatalogEntry,
  config: OpenAiChatBody['image_config'],
): { aspect?: string; imageSize?: ImageSize } {
  const aspect = config?.aspect_ratio?.trim() || undefined;
  const size = config?.image_size?.trim().toUpperCase() || undefined;
  if (aspect !== undefined && !model.aspects.includes(aspect))
    throw new InvalidInput(
      `image_config.aspect_ratio ${aspect} is not offered by model ${model.id}; accepted: ${model.aspects.join(', ')}`,
      'image_config',
    );
  const imageSize = model.sizes.find((s) => s === size);
  if (size !== undefined && !imageSize)
    throw new InvalidInput(
      `image_config.image_size ${size} is not offered by model ${model.id}; accepted: ${model.sizes.join(', ')}`,
      'image_config',
    );
  return { ...(aspect ? { aspect } : {}), ...(imageSize ? { imageSize } : {}) };
}

/** The image requests' plan; a refusal of the images (their count, the mode) names `messages`, where they came from. */
function planOrRefuse(deps: ChatPlanDeps, input: ImageRequestInput): ImagePlan {
  try {
    return deps.images.plan(input);
  } catch (error) {
    if (!(error instanceof InvalidInput) || error.field !== 'image') throw error;
    throw new InvalidInput(error.message.replace(/^image:/, 'messages:'), 'messages');
  }
}

/** A reference as a URL the generate request takes: a data URL is stored first (errors name its part). */
async function referenceUrl(deps: ChatPlanDeps, account: Account, image: { url: string; field: string }) {
  if (!isDataUrl(image.url)) return image.url;
  try {
    return await storeDataUrl(deps.uploads, account.id, image.url, image.field);
  } catch (error) {
    throw error instanceof DomainError ? aboutReferenceField(error, image.field, 'messages') : error;
  }
}

/**
 * Plans a chat turn: the prompt and references of the conversation (chat-messages.ts). The latest
 * assistant image, when it is one of the account's works, is the parent (the new work is its next
 * version: an edit, a fusion with the user's own images after it when the model lists fusion); a
 * foreign one is a plain first reference. The user message's images are references (one = edit,
 * several = fusion); on a model without fusion they replace the assistant's image, and a model
 * without edit ignores it (a new image from the text).
 */
export async function planChatTurn(
  deps: ChatPlanDeps,
  account: Account,
  body: OpenAiChatBody,
): Promise<ChatPlan> {
  const turn = readChatTurn(body.messages);
  // An unknown model is refused by the plan (404), before anything is read or stored.
  const model = deps.catalog.get(body.model?.trim() || DEFAULT_MODEL_ID);
  if (model) checkModalities(body.modalities, model.id);
  // The user's own images with a model that cannot blend: theirs is the image to edit. A model
  // that cannot edit makes a new image from the text alone.
  const blends = turn.userImages.length === 0 || !!model?.modes.includes('fusion');
  const prior = blends && model?.modes.includes('edit') ? turn.assistantImage : undefined;
  const parentId = prior && (await ownWorkOfImage(deps, account.id, prior.url, prior.field));
  const references = [...(prior && !parentId ? [prior] : []), ...turn.userImages];
  const plan = planOrRefuse(deps, {
    prompt: turn.prompt,
    model: body.model,
    n: body.n,
    references: references.length + (parentId ? 1 : 0),
    response_format: body.image_url_format === 'url' ? 'url' : 'b64_json',
    callback_url: body.callback_url,
  });
  const config = imageConfigOf(plan.model, body.image_config);
  if (config.aspect) Object.assign(plan, { aspect: config.aspect, keepReferenceAspect: false });
  if (config.imageSize) plan.imageSize = config.imageSize;
  if (parentId) Object.assign(plan, { parentId, instruction: turn.prompt });
  const urls: string[] = [];
  for (const image of references) urls.push(await referenceUrl(deps, account, image));
  return { plan, urls };
}
