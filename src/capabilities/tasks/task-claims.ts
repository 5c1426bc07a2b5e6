import { sql } from 'kysely';
import type { TaskStatus } from '../../base/domain/task-status.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import { skipLockedOn } from '../../infra/store/skip-locked.js';
import { fairDueIds } from './fair-claim.js';
import { createLeasedWrites } from './leased-writes.js';
import { cancelUnfinishedMany } from './task-cancels.js';
import { FINISHED_COLUMNS, finishingWrites, type OnTaskFinished } from './task-finish.js';
import { isUnfinished } from './unfinished-tasks.js';

/**
 * The engine's side of the tasks store: claims of due tasks under a lease, the lease-guarded
 * writes and the heartbeat, cancel, the lease holders and the give-back, call-backs of parked
 * tasks, and the next due time. Only the task engine (and cancel) calls these.
 */
export function createTaskClaims({
  db,
  clock,
  onFinished,
}: {
  db: Db;
  clock: Clock;
  onFinished?: OnTaskFinished | undefined;
}) {
  const finishing = finishingWrites(db, onFinished);
  const leased = createLeasedWrites({ db, onFinished, finishing });
  return {
    claimDue: (owner: string, leaseMs: number, limit: number) =>
      claimDue(db, clock.now(), owner, leaseMs, limit),

    claimIds: (owner: string, leaseMs: number, taskIds: readonly string[]) =>
      claimIds(db, clock.now(), owner, leaseMs, taskIds),

    /**
     * Writes a leased task. Only the lease holder may write, and never to a finished task:
     * this is what keeps final states final when a lease was lost to another worker.
     */
    updateLeasedRow: (
      taskId: string,
      owner: string,
      patch: Partial<TasksTable>,
      withFinal?: OnTaskFinished,
    ): Promise<boolean> => leased.update(taskId, owner, patch, clock.now(), withFinal),

    /**
     * The heartbeat: extends `owner`'s lease of an unfinished task. False when the lease is no
     * longer `owner`'s (taken over, released) or the task ended (canceled): the holder stops.
     */
    renewLease: (taskId: string, owner: string, expiresAt: number): Promise<boolean> =>
      leased.renew(taskId, owner, expiresAt),

    /**
     * Ends an unfinished task as failed with `error`, whoever holds its lease (cancel). The lease
     * holder's later writes are then refused by the status guard of `updateLeased`.
     */
    cancelUnfinished: (taskId: string, error: string): Promise<boolean> => {
      const now = clock.now();
      return finishing((trx) =>
        trx
          .updateTable('tasks')
          .set({
            status: 'failed',
            error,
            finished_at: now,
            updated_at: now,
            lease_owner: null,
            lease_expires_at: null,
            capacity_pool: null,
          })
          .where('id', '=', taskId)
          .where(isUnfinished)
          .returning(FINISHED_COLUMNS)
          .executeTakeFirst(),
      );
    },

    /**
     * Ends many unfinished tasks (those of `statuses`) as failed with `error`, whoever holds their
     * leases (an operator's cancel); answers each with its row before and after.
     */
    cancelUnfinishedMany: (taskIds: readonly string[], error: string, statuses: readonly TaskStatus[]) =>
      cancelUnfinishedMany(db, onFinished, clock.now(), { taskIds, error, statuses }),

    leaseHolders: () => leaseHolders(db),
    releaseAll: (owner: string) => releaseAll(db, owner, clock.now()),
    wakeParked: (poolPattern: string) => wakeParked(db, clock.now(), poolPattern),
    nextDueAt: () => nextDueAt(db),
  };
}

/**
 * Leases up to `limit` due tasks for `owner`: unfinished, due, and not under someone else's
 * live lease (an expired lease — a crashed worker's — is taken over), in fair turns between
 * accounts (fair-claim.ts).
 */
async function claimDue(
  db: Db,
  now: number,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<TasksTable[]> {
  // PostgreSQL locks no rows of a select with a window function: the fair pick is locked by an
  // outer select of the same rows, skipping those another worker is claiming at this moment.
  const due = skipLockedOn(
    db,
    db
      .selectFrom('tasks')
      .select('id')
      .where('id', 'in', fairDueIds(db, now, limit)),
  );
  // The lease condition is repeated on the UPDATE itself: that is the single-writer guard on
  // SQLite, and on PostgreSQL it keeps a row whose lease changed since the sub-select untaken.
  return db
    .updateTable('tasks')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', due)
    .where(isUnfinished)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
    .returningAll()
    .execute();
}

/** Leases specific tasks (fresh ones, for the inline submit of the generate request). */
async function claimIds(
  db: Db,
  now: number,
  owner: string,
  leaseMs: number,
  taskIds: readonly string[],
): Promise<TasksTable[]> {
  if (taskIds.length === 0) return [];
  return db
    .updateTable('tasks')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', [...taskIds])
    .where(isUnfinished)
    .where((eb) =>
      eb.or([
        eb('lease_owner', '=', owner),
        eb('lease_expires_at', 'is', null),
        eb('lease_expires_at', '<=', now),
      ]),
    )
    .returningAll()
    .execute();
}

/** The distinct owners of the leases held on unfinished tasks. */
async function leaseHolders(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('tasks')
    .select('lease_owner')
    .distinct()
    .where('lease_owner', 'is not', null)
    .where(isUnfinished)
    .execute();
  return rows.flatMap((row) => (row.lease_owner ? [row.lease_owner] : []));
}

/**
 * How long a task whose submit may have been on the wire stays with its gone holder before another
 * worker takes it (see `releaseAll`): as long as an adapter waits before reconciling a create whose
 * answer was lost (replicate-provider.ts).
 */
export const RECONCILE_SETTLE_MS = 10_000;

/**
 * Gives back every lease `owner` holds (a worker stopping, or a dead process's), so another worker
 * can take the tasks at once — except a task whose submit may be in flight (`needs_reconcile`): a
 * create the holder sent just before it stopped or died can still reach the upstream a moment
 * later, and a reconcile at once would miss it and create a second job. Such a task stays leased
 * for `RECONCILE_SETTLE_MS` more; then any worker takes it over and reconciles.
 */
async function releaseAll(db: Db, owner: string, now: number): Promise<void> {
  const held = db.updateTable('tasks').where('lease_owner', '=', owner).where(isUnfinished);
  await held.set({ lease_owner: null, lease_expires_at: null }).where('needs_reconcile', '=', 0).execute();
  await held
    .set({ lease_expires_at: now + RECONCILE_SETTLE_MS })
    .where('needs_reconcile', '=', 1)
    .execute();
}

/**
 * Calls back at once every unleased task parked on a pool whose id matches `poolPattern` (SQL
 * `like`): a pooled key was taken out, and its waiting tasks choose another key.
 */
async function wakeParked(db: Db, now: number, poolPattern: string): Promise<number> {
  const result = await db
    .updateTable('tasks')
    .set({ next_run_at: now })
    .where('capacity_pool', 'like', poolPattern)
    .where(isUnfinished)
    .where('next_run_at', '>', now)
    .where('lease_owner', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Earliest time an unfinished task could be leased: its due time, or the end of the live lease
 * that holds it (a task in flight is not due again until its holder lets go or dies).
 */
async function nextDueAt(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('tasks')
    .select(
      sql<
        number | string | null
      >`min(case when lease_expires_at > next_run_at then lease_expires_at else next_run_at end)`.as('due'),
    )
    .where(isUnfinished)
    .executeTakeFirst();
  return row?.due == null ? undefined : Number(row.due);
}
