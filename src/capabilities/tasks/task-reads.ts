import { sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import { compiledPerLength } from '../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import type { PendingListingOptions, TaskWithRequest } from './pending-tasks.js';
import { RECORD_COLUMNS } from './task-record.js';
import { isUnfinished } from './unfinished-tasks.js';

/** The columns of a task's wire record, as read (the poll path). */
export type TaskRecordRow = Pick<TasksTable, (typeof RECORD_COLUMNS)[number]>;

/** The creation view's cards of an account (the creations read model joins tasks with their generations). */
export type PendingCards = (accountId: string, options: PendingListingOptions) => Promise<TaskWithRequest[]>;

/**
 * The read side of the tasks store: an account's tasks and records (the poll path), the tasks of
 * generations (history), the creation view's cards, and the queue for metrics. Writes none.
 */
export function createTaskReads({
  db,
  clock,
  pendingCards,
}: {
  db: Db;
  clock: Clock;
  pendingCards?: PendingCards | undefined;
}) {
  const recordsQuery = recordsQueries(db);
  // The hand-off's read of the tasks a request just made: compiled once per count of ids.
  const rowsQuery = compiledPerLength(1, ([accountId]: [string], ids: string[]) =>
    db.selectFrom('tasks').selectAll().where('id', 'in', ids).where('account_id', '=', accountId),
  );
  const extrasQuery = streamExtrasQueries(db);
  return {
    findForAccount: (accountId: string, taskId: string): Promise<TasksTable | undefined> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', taskId)
        .where('account_id', '=', accountId)
        .executeTakeFirst(),

    findManyForAccount: async (accountId: string, taskIds: readonly string[]): Promise<TasksTable[]> =>
      taskIds.length === 0 ? [] : (await db.executeQuery(rowsQuery([accountId], [...new Set(taskIds)]))).rows,

    /**
     * The record columns of an account's tasks among `taskIds` (distinct, at least one; foreign and
     * unknown ids are absent), in no particular order: one compiled query (the poll path).
     */
    readRecordsForAccount: async (accountId: string, taskIds: readonly string[]): Promise<TaskRecordRow[]> =>
      (await db.executeQuery(recordsQuery([accountId], taskIds))).rows,

    readStreamExtras: async (accountId: string | undefined, taskIds: readonly string[]) =>
      taskIds.length === 0 ? [] : (await db.executeQuery(extrasQuery(accountId, taskIds))).rows,

    findByGenerations: (generationIds: readonly string[]) => findByGenerations(db, generationIds),

    listUnfinishedForAccount: (accountId: string): Promise<TasksTable[]> =>
      db
        .selectFrom('tasks')
        .selectAll()
        .where('account_id', '=', accountId)
        .where(isUnfinished)
        .orderBy('created_at')
        .orderBy('idx')
        .execute(),

    /**
     * The creation view's cards: tasks with their generations' requests, read by the creations read
     * model (src/use-cases/read-models/creations.ts), which the composition root hands in.
     */
    listPendingForAccount(accountId: string, options: PendingListingOptions): Promise<TaskWithRequest[]> {
      if (!pendingCards) throw new Error('the tasks repository was built without its pending cards');
      return pendingCards(accountId, options);
    },

    queueSnapshot: () => queueSnapshot(db, clock.now()),
  };
}

/**
 * Without statistics SQLite prefers the account index for `id IN (…20) AND account_id = ?` and
 * reads every task the account ever made (it does use the primary key for one id). `+account_id`
 * is SQLite's way to keep a term from choosing the index: the ids pick the rows, the account
 * filters them. PostgreSQL keeps statistics and picks the key by itself.
 */
function ownedBy(db: Db, accountId: string) {
  return dialectOf(db) === 'sqlite'
    ? sql<boolean>`+${sql.ref('account_id')} = ${accountId}`
    : sql<boolean>`${sql.ref('account_id')} = ${accountId}`;
}

/** The poll path's record query: compiled once; batches get one compiled query per batch size (1–20). */
function recordsQueries(db: Db) {
  return compiledPerLength(1, ([accountId]: [string], ids: string[]) =>
    db.selectFrom('tasks').select(RECORD_COLUMNS).where('id', 'in', ids).where(ownedBy(db, accountId)),
  );
}

/**
 * Partial frame counts and reported usage of tasks (the OpenAI routes, issue 29: each answer reads
 * them); of an account's when named. Compiled once per count of ids, with and without the account.
 */
function streamExtrasQueries(db: Db) {
  const select = (ids: string[]) =>
    db.selectFrom('tasks').select(['id', 'partial_frames', 'usage_json']).where('id', 'in', ids);
  const anyAccount = compiledPerLength(0, (_: [], ids: string[]) => select(ids));
  const ofAccount = compiledPerLength(1, ([accountId]: [string], ids: string[]) =>
    select(ids).where('account_id', '=', accountId),
  );
  return (accountId: string | undefined, taskIds: readonly string[]) =>
    accountId === undefined ? anyAccount([], taskIds) : ofAccount([accountId], taskIds);
}

/** The records of the tasks of `generationIds`, in generation then image order (history, saved works). */
async function findByGenerations(
  db: Db,
  generationIds: readonly string[],
): Promise<Array<TaskRecordRow & Pick<TasksTable, 'generation_id'>>> {
  if (generationIds.length === 0) return [];
  return db
    .selectFrom('tasks')
    .select([...RECORD_COLUMNS, 'generation_id'])
    .where('generation_id', 'in', [...generationIds])
    .orderBy('generation_id')
    .orderBy('idx')
    .execute();
}

/** The queue for metrics: unfinished tasks, and how long the longest-due untaken one has waited. */
async function queueSnapshot(db: Db, now: number): Promise<{ depth: number; oldestDueSeconds: number }> {
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
}
