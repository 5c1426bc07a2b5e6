import type { ExpressionBuilder } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import { enqueueBlobPurges, type PurgeReason } from '../../infra/blobs/blob-purges.js';
import type { Db } from '../../infra/store/database.js';
import type { Database } from '../../infra/store/schema.js';

/** Works one run of the job purges at most (the next run takes the rest). */
const WORK_BATCH = 200;

/**
 * Purges one work in one transaction: marks its files gone (`purged_at`), drops its result assets
 * and kept conversation turns, and puts every file it used (results, references, mask, an action's
 * canvas) on the to-do list; the files go when no other row uses them (blob-purges.ts). The work's
 * row and tasks stay (task records, cost history). A work with a task still running waits for the
 * next run (its result would land after the purge). Answers whether this call purged it.
 */
export async function purgeWork(
  db: Db,
  clock: Clock,
  generationId: string,
  reason: PurgeReason,
): Promise<boolean> {
  const running = await db
    .selectFrom('tasks')
    .select('id')
    .where('generation_id', '=', generationId)
    .where('status', 'in', ['queued', 'in_progress'])
    .executeTakeFirst();
  if (running) return false;
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    const work = await trx
      .updateTable('generations')
      .set({ purged_at: now })
      .where('id', '=', generationId)
      .where('purged_at', 'is', null)
      .returning(['account_id', 'ref_keys_json', 'mask_key'])
      .executeTakeFirst();
    if (!work) return false;
    const tasks = await trx
      .selectFrom('tasks')
      .select(['id', 'blob_key'])
      .where('generation_id', '=', generationId)
      .execute();
    await trx.deleteFrom('assets').where('generation_id', '=', generationId).execute();
    const taskIds = tasks.map((t) => t.id);
    if (taskIds.length > 0) await trx.deleteFrom('task_turns').where('task_id', 'in', taskIds).execute();
    await enqueueBlobPurges(trx, {
      keys: [...tasks.map((t) => t.blob_key), ...(JSON.parse(work.ref_keys_json) as string[]), work.mask_key],
      accountId: work.account_id,
      reason,
      dueAt: now,
    });
    return true;
  });
}

/**
 * The housekeeping job of deleted works: every work deleted from saved works (the website sends the
 * delete when its Undo offer ends) is purged at the next run.
 */
/** A filter on `generations`: none of the work's tasks is still queued or running. */
export function noTaskRunning({ not, exists, selectFrom }: ExpressionBuilder<Database, 'generations'>) {
  return not(
    exists(
      selectFrom('tasks')
        .select('tasks.id')
        .whereRef('tasks.generation_id', '=', 'generations.id')
        .where('tasks.status', 'in', ['queued', 'in_progress']),
    ),
  );
}

export async function purgeRemovedWorks(db: Db, clock: Clock): Promise<number> {
  const removed = await db
    .selectFrom('generations')
    .select('id')
    .where('deleted_at', 'is not', null)
    .where('purged_at', 'is', null)
    // A work with a task still running waits (so it never holds up the batch of those that can go).
    .where(noTaskRunning)
    .orderBy('deleted_at')
    .limit(WORK_BATCH)
    .execute();
  let purged = 0;
  for (const { id } of removed) if (await purgeWork(db, clock, id, 'deleted')) purged++;
  return purged;
}
