import type { Readable } from 'node:stream';
import { NotFound } from '../../base/domain/errors.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import type { PartialFrame } from '../providers/index.js';

/**
 * Partial frames of a task still rendering (OpenAI's `partial_images`, issue 29). The engine may
 * run on another node than the stream that shows them, so a frame travels through shared state:
 * the engine stores it as a blob, counts it on the task row (`partial_frames`, migration 0025) and
 * announces the count on the task change feed; the stream reads the blob. At most
 * MAX_PARTIAL_FRAMES small frames per task, removed when the task ends.
 */
export const MAX_PARTIAL_FRAMES = 3;

/** The blob key of frame `index` of a task (PNG: the renderers that make frames make PNG). */
export const partialFrameKey = (taskId: string, index: number) => `partials/${taskId}-${index}.png`;

/** Stores frame `index` of a task; returns the task's new frame count. */
export async function storePartialFrame(
  blobs: BlobStore,
  taskId: string,
  index: number,
  frame: PartialFrame,
): Promise<number> {
  await blobs.put(partialFrameKey(taskId, index), frame.bytes, frame.contentType);
  return index + 1;
}

/** Removes a finished task's frames (best effort: a frame left behind is small and bounded). */
export function removePartialFrames(blobs: BlobStore, taskId: string, count: number): Promise<void> {
  const keys = Array.from({ length: Math.min(count, MAX_PARTIAL_FRAMES) }, (_, i) =>
    partialFrameKey(taskId, i),
  );
  return Promise.all(keys.map((key) => blobs.delete(key))).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The newest frames of an account's tasks, for the website's live previews (issue 37): frame
 * `index` of a task the account owns, while it is stored; NotFound otherwise (another account's
 * task reads as a missing one, and a finished task's frames are gone).
 */
export function createPartialFrameReads(deps: {
  blobs: BlobStore;
  partialFrames(accountId: string, taskIds: readonly string[]): Promise<Map<string, number>>;
}) {
  return {
    async open(
      accountId: string,
      taskId: string,
      index: number,
    ): Promise<{ stream: Readable; contentType: string; bytes: number }> {
      const stored = (await deps.partialFrames(accountId, [taskId])).get(taskId) ?? 0;
      const found = index < stored ? await deps.blobs.open(partialFrameKey(taskId, index)) : undefined;
      if (!found) throw new NotFound(`No preview ${index} of task ${taskId}`);
      return { stream: found.stream, contentType: found.stat.contentType, bytes: found.stat.bytes };
    },
  };
}

export type PartialFrameReads = ReturnType<typeof createPartialFrameReads>;
