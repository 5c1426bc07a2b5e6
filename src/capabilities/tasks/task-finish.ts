import type { Transaction } from 'kysely';
import { type FinalStatus, isFinalStatus } from '../../base/domain/task-status.js';
import type { Db } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import type { Database } from '../../infra/store/schema.js';
import { RECORD_COLUMNS } from './task-record.js';

/** What a write that may end a task returns (`RETURNING`), so the hook sees the row as written. */
export const FINISHED_COLUMNS = [
  'account_id',
  'generation_id',
  'finished_at',
  'created_at',
  // What an upstream billed beyond a quote's cap: usage counts it apart from the spend.
  'cost_absorbed_micros',
  // The finished record (the record's columns): the task-finished event carries it.
  ...RECORD_COLUMNS,
] as const;

type FinishedRow = Pick<TasksTable, (typeof FINISHED_COLUMNS)[number]>;

/**
 * A task that has just reached its final state, as the write that ended it left it: the
 * task-finished event, with its finished record (what `toTaskRecord` maps onto the wire).
 */
export type FinishedTask = FinishedRow & { status: FinalStatus };

/**
 * Another capability's write that commits with a task's final write (usage counts, the history
 * version, the webhooks' outbox). The guarded write succeeds once per task, so the hook runs
 * exactly once per task, whichever engine wins.
 */
export type OnTaskFinished = (trx: Transaction<Database>, task: FinishedTask) => Promise<void>;

/**
 * Runs writes that may end a task: with a hook (the store's, and the write's own `withFinal`: a
 * result's asset), the write and the hooks commit together (or nothing does), and the hooks run
 * only when the guarded write changed the row and ended the task. True when it changed the row.
 */
export function finishingWrites(db: Db, onFinished: OnTaskFinished | undefined) {
  return async (
    update: (executor: Db) => Promise<FinishedRow | undefined>,
    withFinal?: OnTaskFinished,
  ): Promise<boolean> => {
    if (!onFinished && !withFinal) return (await update(db)) !== undefined;
    return db.transaction().execute((trx) => finishIn(trx, update, onFinished, withFinal));
  };
}

/** The guarded write that may end a task, then (when it did) its hooks, in the caller's transaction. */
export async function finishIn(
  trx: Transaction<Database>,
  update: (executor: Db) => Promise<FinishedRow | undefined>,
  onFinished: OnTaskFinished | undefined,
  withFinal: OnTaskFinished | undefined,
): Promise<boolean> {
  const row = await update(trx);
  if (!row) return false;
  if (!isFinalStatus(row.status)) return true;
  const task: FinishedTask = { ...row, status: row.status };
  await onFinished?.(trx, task);
  await withFinal?.(trx, task);
  return true;
}
