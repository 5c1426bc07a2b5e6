import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import { pixelSize } from '../../base/domain/image-sizes.js';
import type { ProviderRequest, ReferenceImage } from '../providers/index.js';
import type { LeasedTask } from './tasks-repository.js';

/** The request of a leased task's upstream call, made with `apiKey` (the account's, or a pooled key). */
export function buildRequest(
  leased: LeasedTask,
  references: ReferenceImage[],
  masks: ReferenceImage[],
  apiKey: string | null,
  signal: AbortSignal,
): ProviderRequest {
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
