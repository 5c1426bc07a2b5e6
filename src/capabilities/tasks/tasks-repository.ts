import { type CompiledQuery, sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import type { GenerationsTable, TasksTable } from '../../infra/store/schema.js';
import { skipLockedOn } from '../../infra/store/skip-locked.js';
import type { PendingListingOptions, TaskWithRequest } from './pending-tasks.js';

export type { TaskWithRequest } from './pending-tasks.js';

import { fairDueIds } from './fair-claim.js';
import { createLeasedWrites } from './leased-writes.js';
import { FINISHED_COLUMNS, finishingWrites, type OnTaskFinished } from './task-finish.js';
import { RECORD_COLUMNS } from './task-record.js';
import { isUnfinished } from './unfinished-tasks.js';

export type TaskRow = TasksTable;
export type TaskPatch = Partial<
  Pick<
    TasksTable,
    | 'status'
    | 'provider'
    | 'upstream_model'
    | 'progress'
    | 'error'
    | 'image_url'
    | 'blob_key'
    | 'width'
    | 'height'
    | 'content_type'
    | 'bytes'
    | 'upstream_id'
    | 'attempts'
    | 'needs_reconcile'
    | 'polls'
    | 'next_run_at'
    | 'lease_owner'
    | 'lease_expires_at'
    | 'started_at'
    | 'finished_at'
    | 'waiting_for'
    | 'upstream_queue_position'
    | 'capacity_pool'
    | 'waiting_since'
    | 'partial_frames'
    | 'usage_json'
    | 'cost_micros'
    | 'cost_source'
    | 'cost_absorbed_micros'
    | 'upstream_key_id'
  >
>;

/** A leased task with what the engine needs from its generation. */
export interface LeasedTask {
  task: TaskRow;
  generation: Pick<
    GenerationsTable,
    | 'id'
    | 'model'
    | 'prompt'
    | 'mode'
    | 'aspect'
    | 'aspect_from_reference'
    | 'image_size'
    | 'ref_keys_json'
    | 'mask_key'
    | 'quality'
  >;
}

export { isUnfinished };

export type TaskRecordRow = Pick<TaskRow, (typeof RECORD_COLUMNS)[number]>;

/** Store queries for tasks. Only the task engine calls the writing ones. */
export function createTasksRepository({
  db,
  clock,
  onFinished,
  requestsOf,
  pendingCards,
}: {
  db: Db;
  clock: Clock;
  onFinished?: OnTaskFinished | undefined;
  /** What the engine needs of leased tasks' generations (the generations capability reads them). */
  requestsOf?: (generationIds: string[]) => Promise<Array<LeasedTask['generation']>>;
  /** The creation view's cards (the creations read model joins tasks with their generations). */
  pendingCards?: (accountId: string, options: PendingListingOptions) => Promise<TaskWithRequest[]>;
}) {
  const finishing = finishingWrites(db, onFinished);
  const leased = createLeasedWrites({ db, onFinished, finishing });
  // Without statistics SQLite prefers the account index for `id IN (…20) AND account_id = ?` and
  // reads every task the account ever made (it does use the primary key for one id). `+account_id`
  // is SQLite's way to keep a term from choosing the index: the ids pick the rows, the account
  // filters them. PostgreSQL keeps statistics and picks the key by itself.
  const ownedBy = (accountId: string) =>
    dialectOf(db) === 'sqlite'
      ? sql<boolean>`+${sql.ref('account_id')} = ${accountId}`
      : sql<boolean>`${sql.ref('account_id')} = ${accountId}`;
  // The poll path: compiled once; batches get one compiled query per batch size (1–20).
  const recordsQueries = new Map<
    number,
    (accountId: string, ...ids: string[]) => CompiledQuery<TaskRecordRow>
  >();
  const recordsQuery = (size: number) => {
    let query = recordsQueries.get(size);
    if (query === undefined) {
      query = compiledOnce(size + 1, (accountId: string, ...ids: string[]) =>
        db.selectFrom('tasks').select(RECORD_COLUMNS).where('id', 'in', ids).where(ownedBy(accountId)),
      );
      recordsQueries.set(size, query);
    }
    return query;
  };

  return {
    async findForAccount(accountId: string, taskId: string): Promise<TaskRow | undefined> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', taskId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
    },

    async findManyForAccount(accountId: string, taskIds: readonly string[]): Promise<TaskRow[]> {
      if (taskIds.length === 0) return [];
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('id', 'in', [...new Set(taskIds)])
        .where('account_id', '=', accountId)
        .execute();
    },

    /**
     * The record columns of an account's tasks among `taskIds` (distinct, at least one; foreign and
     * unknown ids are absent), in no particular order: one compiled query (the poll path).
     */
    async readRecordsForAccount(accountId: string, taskIds: readonly string[]): Promise<TaskRecordRow[]> {
      const { rows } = await db.executeQuery(recordsQuery(taskIds.length)(accountId, ...taskIds));
      return rows;
    },

    /** Partial frame counts and reported usage of tasks (the OpenAI routes, issue 29); of an account's when named. */
    async readStreamExtras(
      accountId: string | undefined,
      taskIds: readonly string[],
    ): Promise<Array<Pick<TaskRow, 'id' | 'partial_frames' | 'usage_json'>>> {
      if (taskIds.length === 0) return [];
      let query = db.selectFrom('tasks').select(['id', 'partial_frames', 'usage_json']);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      return query.where('id', 'in', [...taskIds]).execute();
    },

    /** The records of the tasks of `generationIds`, in generation then image order (history, saved works). */
    async findByGenerations(
      generationIds: readonly string[],
    ): Promise<Array<TaskRecordRow & Pick<TaskRow, 'generation_id'>>> {
      if (generationIds.length === 0) return [];
      return db
        .selectFrom('tasks')
        .select([...RECORD_COLUMNS, 'generation_id'])
        .where('generation_id', 'in', [...generationIds])
        .orderBy('generation_id')
        .orderBy('idx')
        .execute();
    },

    async listUnfinishedForAccount(accountId: string): Promise<TaskRow[]> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('account_id', '=', accountId)
        .where(isUnfinished)
        .orderBy('created_at')
        .orderBy('idx')
        .execute();
    },

    /**
     * The creation view's cards: tasks with their generations' requests, read by the creations read
     * model (src/use-cases/read-models/creations.ts), which the composition root hands in.
     */
    listPendingForAccount(accountId: string, options: PendingListingOptions): Promise<TaskWithRequest[]> {
      if (!pendingCards) throw new Error('the tasks repository was built without its pending cards');
      return pendingCards(accountId, options);
    },

    /**
     * Leases up to `limit` due tasks for `owner`: unfinished, due, and not under someone else's
     * live lease (an expired lease — a crashed worker's — is taken over), in fair turns between
     * accounts (fair-claim.ts).
     */
    async leaseDue(owner: string, leaseMs: number, limit: number): Promise<LeasedTask[]> {
      const now = clock.now();
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
      const tasks = await db
        .updateTable('tasks')
        .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
        .where('id', 'in', due)
        .where(isUnfinished)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
        .returningAll()
        .execute();
      return attachGenerations(tasks);
    },

    /** Leases specific tasks (fresh ones, for the inline submit of the generate request). */
    async leaseIds(owner: string, leaseMs: number, taskIds: readonly string[]): Promise<LeasedTask[]> {
      if (taskIds.length === 0) return [];
      const now = clock.now();
      const tasks = await db
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
      return attachGenerations(tasks);
    },

    /**
     * Writes a leased task. Only the lease holder may write, and never to a finished task:
     * this is what keeps final states final when a lease was lost to another worker.
     */
    updateLeased(taskId: string, owner: string, patch: TaskPatch): Promise<boolean> {
      return leased.update(taskId, owner, patch, clock.now());
    },

    /**
     * The heartbeat: extends `owner`'s lease of an unfinished task. False when the lease is no
     * longer `owner`'s (taken over, released) or the task ended (canceled): the holder stops.
     */
    renewLease(taskId: string, owner: string, expiresAt: number): Promise<boolean> {
      return leased.renew(taskId, owner, expiresAt);
    },

    /**
     * Ends an unfinished task as failed with `error`, whoever holds its lease (cancel). The lease
     * holder's later writes are then refused by the status guard of `updateLeased`.
     */
    async cancelUnfinished(taskId: string, error: string): Promise<boolean> {
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

    /** The distinct owners of the leases held on unfinished tasks. */
    async leaseHolders(): Promise<string[]> {
      const rows = await db
        .selectFrom('tasks')
        .select('lease_owner')
        .distinct()
        .where('lease_owner', 'is not', null)
        .where(isUnfinished)
        .execute();
      return rows.flatMap((row) => (row.lease_owner ? [row.lease_owner] : []));
    },

    /** Gives back every lease `owner` holds, so another worker can take the tasks at once. */
    async releaseAll(owner: string): Promise<void> {
      await db
        .updateTable('tasks')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('lease_owner', '=', owner)
        .where(isUnfinished)
        .execute();
    },

    /**
     * Calls back at once every unleased task parked on a pool whose id matches `poolPattern` (SQL
     * `like`): a pooled key was taken out, and its waiting tasks choose another key.
     */
    async wakeParked(poolPattern: string): Promise<number> {
      const now = clock.now();
      const result = await db
        .updateTable('tasks')
        .set({ next_run_at: now })
        .where('capacity_pool', 'like', poolPattern)
        .where(isUnfinished)
        .where('next_run_at', '>', now)
        .where('lease_owner', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** The queue for metrics: unfinished tasks, and how long the longest-due untaken one has waited. */
    async queueSnapshot(): Promise<{ depth: number; oldestDueSeconds: number }> {
      const now = clock.now();
      const row = await db
        .selectFrom('tasks')
        .select([
          sql<number | string>`count(*)`.as('depth'),
          sql<
            number | string | null
          >`min(case when next_run_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now}) then next_run_at end)`.as(
            'due',
          ),
        ])
        .where(isUnfinished)
        .executeTakeFirst();
      const due = row?.due == null ? now : Number(row.due);
      return { depth: Number(row?.depth ?? 0), oldestDueSeconds: Math.max(0, now - due) / 1000 };
    },

    /**
     * Earliest time an unfinished task could be leased: its due time, or the end of the live lease
     * that holds it (a task in flight is not due again until its holder lets go or dies).
     */
    async nextDueAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('tasks')
        .select(
          sql<
            number | string | null
          >`min(case when lease_expires_at > next_run_at then lease_expires_at else next_run_at end)`.as(
            'due',
          ),
        )
        .where(isUnfinished)
        .executeTakeFirst();
      return row?.due == null ? undefined : Number(row.due);
    },
  };

  async function attachGenerations(tasks: TaskRow[]): Promise<LeasedTask[]> {
    if (tasks.length === 0) return [];
    if (!requestsOf) throw new Error('the tasks repository was built without its generations reader');
    const generations = await requestsOf([...new Set(tasks.map((t) => t.generation_id))]);
    const byId = new Map(generations.map((g) => [g.id, g]));
    return tasks.flatMap((task) => {
      const generation = byId.get(task.generation_id);
      return generation ? [{ task, generation }] : [];
    });
  }
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
