import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { submitGenerate } from '../../lib/generate';
import { applyRecords } from '../../lib/tasks';
import type { HistoryItem, SavedWork, TaskRecord } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';
import { actionSummary } from './image-actions';
import type { LightboxItem } from './lightbox-items';

/**
 * A work's versions (issue 44): the works a refinement chain holds, oldest first, read from
 * GET /web/api/works/{id}/versions; and refining — a generate naming the shown image as its parent.
 */
export type WorkVersion = HistoryItem;

/** How often a refinement's task is asked about while it renders. */
const TASK_POLL_MS = 1000;

/**
 * "Version 2: make the sky darker", "Version 3: Upscaled ×2" — a version's name in the strip (its
 * alt text and title): a refinement's instruction, an action's summary, else the prompt.
 */
export function versionLabel(version: WorkVersion, index: number): string {
  const removed = version.removed ? ' (deleted)' : '';
  const { action, actionOptions } = version;
  const name = action ? actionSummary(action, actionOptions) : (version.instruction ?? version.prompt);
  return `Version ${index + 1}: ${name}${removed}`;
}

/** The versions of `workId`'s chain, read again whenever `reload` changes; undefined until read. */
export function useVersions(workId: string | null, reload: number): WorkVersion[] | undefined {
  const [found, setFound] = useState<{ workId: string; versions: WorkVersion[] }>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: `reload` asks for a fresh reading.
  useEffect(() => {
    if (!workId) return;
    let live = true;
    api.get<{ versions: WorkVersion[] }>(`/web/api/works/${encodeURIComponent(workId)}/versions`).then(
      ({ versions }) => live && setFound({ workId, versions }),
      // A work deleted or not yet listed: no strip (the lightbox works on without it).
      () => live && setFound({ workId, versions: [] }),
    );
    return () => {
      live = false;
    };
  }, [workId, reload]);
  return found?.workId === workId ? found.versions : undefined;
}

/** A version shown in the lightbox in place of the list's item (focus still returns to that item's card). */
export function itemOfVersion(version: WorkVersion, index: number, listItem: LightboxItem): LightboxItem {
  const url = version.images[0];
  return {
    key: `version:${version.id}`,
    url,
    alt: versionLabel(version, index),
    kind: 'result',
    caption: null,
    workId: version.id,
    createdAt: version.createdAt,
    // Its settings are read by id (source included), as for a Library result.
    note: url ? undefined : 'No image: this version did not finish.',
    focusSelector: listItem.focusSelector,
  };
}

/** A version's item completed from its saved work: its image's task, size in pixels and bytes. */
export function withImageOf(item: LightboxItem, work: SavedWork): LightboxItem {
  const task = work.tasks.find((t) => t.imageUrl === item.url);
  if (!task) return item;
  const { width, height, bytes, seed } = task;
  return { ...item, taskId: task.task_id, width, height, bytes, seed };
}

/** What a refinement keeps of the work it refines. */
export interface RefineBasis {
  model: string;
  aspect: string;
  imageSize: string;
}

/**
 * Asks for the next version of an image: a generate whose parent is that image (its task id, or its
 * work's id), whose prompt is the instruction, with the work's model, aspect and size. Its card
 * shows in Create at once, like any generate from the website. Answers the new task's id.
 */
export async function submitRefinement(parentId: string, basis: RefineBasis, instruction: string) {
  const { model, aspect, imageSize } = basis;
  const [taskId] = await submitGenerate({
    prompt: instruction,
    instruction,
    parentId,
    model,
    aspect,
    imageSize,
    mode: 'edit',
    count: 1,
    imageUrls: [],
  });
  if (!taskId) throw new Error('No task was created.');
  return taskId;
}

/**
 * The task's final record (GET /api/v1/tasks/{id}, the session authenticates), asked about once a
 * second; each answer also updates its card in Create. Undefined once `live()` turns false.
 */
export async function finalRecord(taskId: string, live: () => boolean): Promise<TaskRecord | undefined> {
  while (live()) {
    const record = await api.get<TaskRecord>(`/api/v1/tasks/${encodeURIComponent(taskId)}`);
    applyRecords([record]);
    if (isFinalStatus(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, TASK_POLL_MS));
  }
  return undefined;
}
