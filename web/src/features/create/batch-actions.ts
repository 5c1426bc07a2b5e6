import { api } from '../../lib/api';
import { type DraftReference, draftStore } from '../../lib/draft';
import { applyRecords } from '../../lib/tasks';
import type { Mode, TaskRecord } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';
import type { Batch } from './batches';

export { submitGenerate } from '../../lib/generate';

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
