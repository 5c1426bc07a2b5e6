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
 * Runs writes that may end a task: with a hook, the write and the hook commit together (or neither
 * does), and the hook runs only when the guarded write changed the row. True when it did.
 */
export function finishingWrites(db: Db, onFinished: OnTaskFinished | undefined) {
  return async (update: (executor: Db) => Promise<FinishedRow | undefined>): Promise<boolean> => {
    if (!onFinished) return (await update(db)) !== undefined;
    return db.transaction().execute(async (trx) => {
      const row = await update(trx);
      if (!row) return false;
      if (isFinalStatus(row.status)) await onFinished(trx, { ...row, status: row.status });
      return true;
    });
  };
}
