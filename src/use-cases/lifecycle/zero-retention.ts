import type { Clock } from '../../base/runtime/clock.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import { noTaskRunning, purgeWork } from './work-purge.js';

/**
 * How long a zero-retention work's images are kept when the caller never fetches them: an hour after
 * the last of its tasks ended (the lifecycle run after that removes them: at most 1 h 5 min).
 */
export const ZERO_RETENTION_MS = 60 * 60 * 1000;

/** Zero-retention works one run of the job looks at, at most (the next run takes the rest). */
const ZERO_RETENTION_BATCH = 200;

/** A result's key names its task: `results/<task id>.<ext>` (task-result.ts). */
const RESULT_KEY = /^results\/([A-Za-z0-9_-]+)\.[a-z0-9]+$/;

/** What zero-retention needs: the store, the clock, the works' removal, and the files' removal now. */
export interface ZeroRetentionDeps {
  db: Db;
  clock: Clock;
  /** Deletes a work from saved works (as the owner's delete does: totals, history version). */
  markRemoved(accountId: string, generationId: string): Promise<unknown>;
  /** Works the to-do list of files to remove now (blob-purges.ts `run`). */
  removeListedFiles(): Promise<unknown>;
}

/**
 * Zero-retention (docs/operations.md, Zero-retention): a work made with a key that stores nothing, or
 * asked `Atelier-Retention: none`, is purged — its files and renditions removed, the work deleted
 * from saved works — as soon as every image it made was delivered (fetched once from /files, or
 * answered inline as base64), or by the lifecycle job an hour after its tasks ended. Task records
 * and usage stay, as for any purge.
 */
export function createZeroRetention(deps: ZeroRetentionDeps) {
  const { db, clock } = deps;
  const resultOf = zeroRetentionResults(db);
  return {
    /** Whether the file at `key` is a result of a zero-retention work not yet purged. */
    async isZeroRetention(key: string): Promise<boolean> {
      const taskId = RESULT_KEY.exec(key)?.[1];
      return taskId !== undefined && (await zeroRetentionTask(db, resultOf, taskId, key));
    },

    /**
     * The images at these keys were delivered; a zero-retention work whose every image now was is
     * purged at once, and its files removed. Keys of other files are left alone (nothing written).
     */
    async delivered(keys: readonly string[]): Promise<number> {
      const works = new Map<string, string>();
      const now = clock.now();
      for (const key of keys) {
        // A read first: an ordinary file (nearly every one) costs no write.
        const taskId = RESULT_KEY.exec(key)?.[1];
        if (taskId === undefined || !(await zeroRetentionTask(db, resultOf, taskId, key))) continue;
        const marked = await db
          .updateTable('tasks')
          .set({ delivered_at: now })
          .where('id', '=', taskId)
          .where('delivered_at', 'is', null)
          .returning(['generation_id', 'account_id'])
          .executeTakeFirst();
        if (marked) works.set(marked.generation_id, marked.account_id);
      }
      let purged = 0;
      for (const [generationId, accountId] of works)
        if (await everyImageDelivered(db, generationId))
          purged += await purgeZeroRetention(deps, accountId, generationId);
      if (purged > 0) await deps.removeListedFiles();
      return purged;
    },

    /**
     * The housekeeping job: zero-retention works whose tasks all ended an hour ago or more, and those
     * whose every image was delivered (a purge a crash interrupted), are purged.
     */
    async expire(): Promise<number> {
      const cutoff = clock.now() - ZERO_RETENTION_MS;
      const ended = await db
        .selectFrom('generations')
        .select(['id', 'account_id'])
        .where('zero_retention', '=', 1)
        .where('purged_at', 'is', null)
        .where(noTaskRunning)
        .orderBy('created_at')
        .limit(ZERO_RETENTION_BATCH)
        .execute();
      let purged = 0;
      for (const work of ended)
        if ((await lastEnded(db, work.id)) <= cutoff || (await everyImageDelivered(db, work.id)))
          purged += await purgeZeroRetention(deps, work.account_id, work.id);
      return purged;
    },
  };
}

export type ZeroRetention = ReturnType<typeof createZeroRetention>;

/** Whether the task's result is at `key` and its work is zero-retention, not yet purged. */
async function zeroRetentionTask(
  db: Db,
  resultOf: ZeroRetentionResult,
  taskId: string,
  key: string,
): Promise<boolean> {
  return (await db.executeQuery(resultOf(taskId, key))).rows.length > 0;
}

/**
 * The read behind every delivered file and every image answered inline: the task whose result is at
 * the key, when its work stores nothing and is not purged yet. Compiled once.
 */
function zeroRetentionResults(db: Db) {
  return compiledOnce(2, (taskId: string, key: string) =>
    db
      .selectFrom('tasks')
      .innerJoin('generations', 'generations.id', 'tasks.generation_id')
      .select('tasks.id')
      .where('tasks.id', '=', taskId)
      .where('tasks.blob_key', '=', key)
      .where('generations.zero_retention', '=', 1)
      .where('generations.purged_at', 'is', null),
  );
}

type ZeroRetentionResult = ReturnType<typeof zeroRetentionResults>;

/** When the last of the work's tasks ended (0 when none did). */
async function lastEnded(db: Db, generationId: string): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.max('finished_at').as('last'))
    .where('generation_id', '=', generationId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** Whether every task of the work ended, and each completed one's image was delivered. */
async function everyImageDelivered(db: Db, generationId: string): Promise<boolean> {
  const waiting = await db
    .selectFrom('tasks')
    .select('id')
    .where('generation_id', '=', generationId)
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['queued', 'in_progress']),
        eb.and([eb('status', '=', 'completed'), eb('delivered_at', 'is', null)]),
      ]),
    )
    .executeTakeFirst();
  return waiting === undefined;
}

/** Deletes the work from saved works and purges it (reason `zero_retention`); 1 when this call did. */
async function purgeZeroRetention(deps: ZeroRetentionDeps, accountId: string, generationId: string) {
  await deps.markRemoved(accountId, generationId);
  return (await purgeWork(deps.db, deps.clock, generationId, 'zero_retention')) ? 1 : 0;
}
