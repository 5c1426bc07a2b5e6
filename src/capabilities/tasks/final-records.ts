import { createRecentMap } from '../../base/collections/recent-map.js';

/**
 * Final task records kept in memory. A task that ended (completed or failed) never changes again —
 * every write of the engine requires an unfinished task — and tasks are never deleted, so a final
 * record read once is the answer for good, on any node: nothing needs invalidating. Polls of
 * finished tasks (clients keep asking after the end; batches mix old and new ids) are then
 * answered without a query. Unfinished records are always read from the store.
 */
export interface FinalRecordCache<Row> {
  /** The final row of `taskId` with its owner, when it has been seen. */
  get(taskId: string): { accountId: string; row: Row } | undefined;
  /** Keeps a final row (call it only for completed or failed tasks). */
  remember(taskId: string, accountId: string, row: Row): void;
}

/** Final records kept by default (about 300 bytes each): the bound the soak bench (M1) reports. */
export const FINAL_RECORDS_KEPT = 10_000;

/** Keeps the most recently polled `capacity` final records (FINAL_RECORDS_KEPT by default). */
export function createFinalRecordCache<Row>(capacity = FINAL_RECORDS_KEPT): FinalRecordCache<Row> {
  const entries = createRecentMap<string, { accountId: string; row: Row }>(capacity);
  return {
    get: (taskId) => entries.get(taskId),
    remember(taskId, accountId, row) {
      entries.set(taskId, Object.freeze({ accountId, row: Object.freeze(row) }));
    },
  };
}
