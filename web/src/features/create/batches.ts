import { api } from '../../lib/api';
import { type DraftReference, draftStore } from '../../lib/draft';
import { applyRecords, upsertCards } from '../../lib/tasks';
import type { TaskCard as Card, Mode, TaskRecord } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';

/**
 * A batch: the tasks of one generate request (one generation), shown as one card on Create — a
 * 2×2 grid for four images, side by side for two. Grouped from the task cards the feed keeps.
 */
export interface Batch {
  /** Its first task's id: stable from the submit (before the generation id is known) on. */
  key: string;
  cards: Card[];
  first: Card;
  running: number;
  /** Failed on their own (an upstream's error): red, and "Retry". */
  failed: Card[];
  /** Stopped by a cancel (failed "Canceled"): neither an error nor a result. */
  cancelled: Card[];
  completed: Card[];
}

/** The task's error a cancel leaves (src/capabilities/tasks/task-engine.ts, CANCELED). */
const CANCELED = 'Canceled';

/** Whether a card was stopped by a cancel rather than failing. */
export const isCancelled = (card: Card): boolean => card.status === 'failed' && card.error === CANCELED;

/** The cards of one generation together, in task order; batches newest first, as the cards are. */
export function groupBatches(cards: Card[]): Batch[] {
  const byGroup = new Map<string, Card[]>();
  for (const card of cards) {
    // Cards just submitted have no generation id yet: their submit (instant and prompt) groups them.
    const group = card.generation_id || `submit:${card.createdAt}:${card.prompt}`;
    const list = byGroup.get(group) ?? [];
    list.push(card);
    byGroup.set(group, list);
  }
  return [...byGroup.values()].map((list) => {
    const sorted = [...list].sort((a, b) => a.index - b.index);
    const first = sorted[0] as Card;
    return {
      key: first.task_id,
      cards: sorted,
      first,
      running: sorted.filter((c) => !isFinalStatus(c.status)).length,
      failed: sorted.filter((c) => c.status === 'failed' && !isCancelled(c)),
      cancelled: sorted.filter(isCancelled),
      completed: sorted.filter((c) => c.status === 'completed' && c.imageUrl),
    };
  });
}

/** What POST /web/api/generate takes. */
export interface GenerateRequest {
  prompt: string;
  model: string;
  mode: Mode;
  aspect: string;
  imageSize: string;
  count: number;
  imageUrls: string[];
}

/** Sends a generate request and shows its cards at once (queued) until the feed has them. */
export async function submitGenerate(body: GenerateRequest): Promise<string[]> {
  const { task_ids } = await api.post<{ task_ids: string[] }>('/web/api/generate', body);
  const createdAt = Date.now();
  upsertCards(
    task_ids.map((taskId, index) => ({
      task_id: taskId,
      status: 'queued',
      progress: 0,
      generation_id: '',
      source: 'web',
      prompt: body.prompt,
      model: body.model,
      mode: body.mode,
      aspect: body.aspect,
      imageSize: body.imageSize,
      index,
      count: task_ids.length,
      refs: body.imageUrls,
      createdAt,
    })),
  );
  return task_ids;
}

/** The batch's request again: same prompt, model, mode, aspect, size and references; `count` images. */
export function requestOf(batch: Batch, count = batch.first.count): GenerateRequest {
  const { prompt, model, mode, aspect, imageSize, refs } = batch.first;
  return { prompt, model, mode: mode as Mode, aspect, imageSize, count, imageUrls: refs ?? [] };
}

/** Cancels the batch's unfinished tasks (POST /api/v1/tasks/{id}/cancel, the session authenticates). */
export async function cancelBatch(batch: Batch): Promise<void> {
  const unfinished = batch.cards.filter((c) => !isFinalStatus(c.status));
  const records = await Promise.allSettled(
    unfinished.map((card) =>
      api.post<TaskRecord>(`/api/v1/tasks/${encodeURIComponent(card.task_id)}/cancel`),
    ),
  );
  applyRecords(records.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
  const refused = records.find((r) => r.status === 'rejected');
  // A task that finished meanwhile answers 409: the feed brings its result; anything else is said.
  if (refused && (refused.reason as { status?: number }).status !== 409) throw refused.reason;
}

/** Fills the Create form with the batch's settings (prompt, model, mode, aspect, size, count, references). */
export function reuseSettings(batch: Batch): void {
  const { prompt, model, mode, aspect, imageSize, count, refs } = batch.first;
  const references: DraftReference[] = (refs ?? []).map((url) => ({
    url,
    name: decodeURIComponent(url.split('/').pop() ?? url),
  }));
  draftStore.set((draft) => ({
    ...draft,
    prompt,
    model,
    mode: mode as Mode,
    aspect,
    imageSize,
    count,
    references,
  }));
}
