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
  const { width, height } = pixelSize(generation.aspect, imageSize);
  const quality = IMAGE_QUALITIES.find((q) => q === generation.quality);
  return {
    taskId: task.id,
    upstreamModel: task.upstream_model,
    mode: generation.mode,
    prompt: generation.prompt,
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
    apiKey,
    signal,
    fairnessKey: task.account_id,
    reconcile: task.needs_reconcile === 1,
    ...(task.partial_images > 0
      ? { partialImages: task.partial_images, partialFrames: task.partial_frames }
      : {}),
  };
}
