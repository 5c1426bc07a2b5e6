import type { TaskStatus } from '../../base/domain/task-status.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { Db } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import type { OnTaskFinished } from './task-finish.js';
import { isUnfinished } from './unfinished-tasks.js';

/** A task a cancel ended: its row as it was just before, and as the cancel left it. */
export interface CanceledRow {
  before: TasksTable;
  after: TasksTable;
}

/**
 * Ends the unfinished tasks among `taskIds` whose status is one of `statuses` as failed with
 * `error`, whoever holds their leases (an operator's cancel of many tasks), in one transaction with
 * the final write's hook of each (usage, history version, the webhooks' outbox): the same guarded
 * write as a single cancel, once per task, so a task that ended meanwhile is left as it ended.
 */
export async function cancelUnfinishedMany(
  db: Db,
  onFinished: OnTaskFinished | undefined,
  now: number,
  change: { taskIds: readonly string[]; error: string; statuses: readonly TaskStatus[] },
): Promise<CanceledRow[]> {
  const { taskIds, error, statuses } = change;
  if (taskIds.length === 0 || statuses.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('tasks')
      .selectAll()
      .where('id', 'in', [...taskIds])
      .where(isUnfinished)
      .where('status', 'in', [...statuses])
      .execute();
    if (before.length === 0) return [];
    const after = await trx
      .updateTable('tasks')
      .set({
        status: 'failed',
        error,
        finished_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
        // Off the pool's line (its partial index holds waiting tasks only).
        capacity_pool: null,
      })
      .where(
        'id',
        'in',
        before.map((row) => row.id),
      )
      .where(isUnfinished)
      .where('status', 'in', [...statuses])
      .returningAll()
      .execute();
    if (onFinished)
      for (const row of after)
        if (isFinalStatus(row.status)) await onFinished(trx, { ...row, status: row.status });
    const byId = new Map(before.map((row) => [row.id, row]));
    return after.flatMap((row) => {
      const was = byId.get(row.id);
      return was ? [{ before: was, after: row }] : [];
    });
  });
}
