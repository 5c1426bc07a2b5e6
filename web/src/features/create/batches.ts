import type { GenerateRequest } from '../../lib/generate';
import type { TaskCard as Card, Mode } from '../../lib/types';

export type { GenerateRequest };

// Value imports name their `.js` file: the unit test beside this file loads it under Node's type stripping.
import { isFinalStatus } from '../../lib/vocabulary.js';

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

/** The batch's request again: same prompt, model, mode, aspect, size and references; `count` images. */
export function requestOf(batch: Batch, count = batch.first.count): GenerateRequest {
  const { prompt, model, mode, aspect, imageSize, refs } = batch.first;
  return { prompt, model, mode: mode as Mode, aspect, imageSize, count, imageUrls: refs ?? [] };
}
