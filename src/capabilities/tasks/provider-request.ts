import { MAX_PROMPT_LENGTH } from '../../base/contract/generate-body.js';
import { type ActionSettings, ROUTED_ACTIONS, upstreamPromptOf } from '../../base/domain/image-actions.js';
import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import { pixelSize } from '../../base/domain/image-sizes.js';
import type { ConversationTurn, ProviderRequest, ReferenceImage } from '../providers/index.js';
import type { LeasedTask } from './tasks-repository.js';

/**
 * The request of a leased task's upstream call, made with `apiKey` (the account's, or a pooled key).
 * With the conversation the task continues (`history`), the parent image is the last turn's and
 * leaves the references (it is their first: see lineage.ts).
 */
export function buildRequest(
  leased: LeasedTask,
  loaded: { references: ReferenceImage[]; masks: ReferenceImage[]; history: ConversationTurn[] },
  apiKey: string | null,
  signal: AbortSignal,
): ProviderRequest {
  const { masks, history } = loaded;
  const references = history.length > 0 ? loaded.references.slice(1) : loaded.references;
  const { task, generation } = leased;
  const imageSize = generation.image_size;
  const action = actionOf(generation);
  const { width, height } = action
    ? actionSize(action, references[0])
    : pixelSize(generation.aspect, imageSize);
  const quality = IMAGE_QUALITIES.find((q) => q === generation.quality);
  return {
    taskId: task.id,
    upstreamModel: task.upstream_model,
    mode: generation.mode,
    // An action's wording goes before the work's prompt (vary, expand); history keeps the prompt.
    prompt: upstreamPromptOf(action, generation.prompt, MAX_PROMPT_LENGTH),
    aspect: generation.aspect,
    keepReferenceAspect: generation.aspect_from_reference === 1,
    imageSize,
    width,
    height,
    index: task.idx,
    references,
    ...(history.length > 0 ? { history } : {}),
    ...(masks[0] ? { mask: masks[0] } : {}),
    ...(quality ? { quality } : {}),
    ...(action ? { action } : {}),
    ...(task.seed == null ? {} : { seed: task.seed }),
    apiKey,
    signal,
    fairnessKey: task.account_id,
    reconcile: task.needs_reconcile === 1,
    ...(task.partial_images > 0
      ? { partialImages: task.partial_images, partialFrames: task.partial_frames }
      : {}),
  };
}

/** The routed action a generation runs (its name and JSON settings, as written at creation), if any. */
function actionOf(generation: LeasedTask['generation']): ActionSettings | undefined {
  const name = ROUTED_ACTIONS.find((a) => a === generation.action);
  if (!name) return undefined;
  const settings = JSON.parse(generation.action_json ?? '{}') as Record<string, unknown>;
  return { ...settings, name } as ActionSettings;
}

/**
 * An action's output size: the picked image's (for expand, the padded canvas's), times the scale
 * of an upscale. The reference is always loaded for an action (its first and only image).
 */
function actionSize(action: ActionSettings, picked: ReferenceImage | undefined) {
  const factor = action.name === 'upscale' ? action.scale : 1;
  return { width: (picked?.width ?? 0) * factor, height: (picked?.height ?? 0) * factor };
}
