import { type CompiledQuery, type RawBuilder, sql } from 'kysely';
import { isFinalStatus } from '../../base/domain/task-status.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import { turnBatches } from '../../infra/store/write-batches.js';
import {
  FINISHED_COLUMNS,
  type FinishedTask,
  finishIn,
  type finishingWrites,
  type OnTaskFinished,
} from './task-finish.js';

type FinishedRow = Omit<FinishedTask, 'status'> & { status: TasksTable['status'] };

/** The columns of a progress mark (a call under way: in progress, since when, how far). */
const PROGRESS_COLUMNS: ReadonlySet<keyof TasksTable> = new Set(['status', 'started_at', 'progress']);
const isProgressMark = (columns: ReadonlyArray<keyof TasksTable>) =>
  columns.length > 0 && columns.every((column) => PROGRESS_COLUMNS.has(column));

/** "The task is unfinished", with literal statuses (as the engine's partial index states it). */
const unfinished: RawBuilder<boolean> = sql<boolean>`${sql.ref('status')} in ('queued', 'in_progress')`;

/**
 * The engine's guarded writes of a leased task — each step's patch, a final write with its hook,
 * the heartbeat — compiled once per set of columns written (the engine writes a handful of shapes),
 * not built by Kysely per write. On SQLite, the final writes and renewals of one turn of the event
 * loop commit together (store/write-batches.ts); on PostgreSQL each runs on the pool as before.
 */
export function createLeasedWrites({
  db,
  onFinished,
  finishing,
}: {
  db: Db;
  onFinished: OnTaskFinished | undefined;
  /** A final write alone, in its own transaction with the hook. */
  finishing: ReturnType<typeof finishingWrites>;
}) {
  const batched = turnBatches(db);

  /**
   * A write that changes the task's row if the lease (and the task) is still there, at once: a
   * step's writes (a parked task's, an async submit's mark) are on the path of the next upstream
   * call, and batched with the turn's final writes they slowed a slot's hand-off (a pool of 4 slots
   * kept 3.2-3.5 calls busy instead of 3.8). Batched are the writes after which nothing waits (final
   * writes, renewals, the progress marks of a call under way) and the lease check just before a
   * call (an empty patch: a burst's thousand checks share one commit instead of one each).
   */
  const changesOne = async (query: CompiledQuery<unknown>, executor: Db = db): Promise<boolean> =>
    Number((await executor.executeQuery(query)).numAffectedRows) === 1;

  /** A write on no call's path (a renewal, a progress mark): on SQLite it shares the turn's commit. */
  const inTurn = (query: CompiledQuery<unknown>): Promise<boolean> =>
    batched
      ? batched(
          (trx) => changesOne(query, trx),
          () => changesOne(query),
        )
      : changesOne(query);

  const renewal = compiledOnce(3, (expiresAt: number, taskId: string, owner: string) =>
    db
      .updateTable('tasks')
      .set({ lease_expires_at: expiresAt })
      .where('id', '=', taskId)
      .where('lease_owner', '=', owner)
      .where(unfinished),
  );

  const updates = new Map<string, (...args: unknown[]) => CompiledQuery<unknown>>();
  const updateOf = (columns: ReadonlyArray<keyof TasksTable>, final: boolean) => {
    const shape = `${final ? 'final' : 'step'}:${columns.join(',')}`;
    let query = updates.get(shape);
    if (query === undefined) {
      query = compiledOnce(columns.length + 3, (...values: unknown[]) => {
        const set = Object.fromEntries(columns.map((column, i) => [column, values[i]]));
        const [updatedAt, taskId, owner] = values.slice(columns.length) as [number, string, string];
        const update = db
          .updateTable('tasks')
          .set({ ...set, updated_at: updatedAt })
          .where('id', '=', taskId)
          .where('lease_owner', '=', owner)
          .where(unfinished);
        return final ? update.returning(FINISHED_COLUMNS) : update;
      });
      updates.set(shape, query);
    }
    return query;
  };

  return {
    /**
     * Writes `patch` if `owner` holds the task's lease and the task is unfinished; a final status
     * commits with the finished-task hook. True when the row changed.
     */
    update(
      taskId: string,
      owner: string,
      patch: Partial<TasksTable>,
      now: number,
      withFinal?: OnTaskFinished,
    ): Promise<boolean> {
      const columns = (Object.keys(patch) as Array<keyof TasksTable>).filter((c) => patch[c] !== undefined);
      const final = isFinalStatus(patch.status);
      const query = updateOf(columns, final)(...columns.map((column) => patch[column]), now, taskId, owner);
      if (!final) return columns.length === 0 || isProgressMark(columns) ? inTurn(query) : changesOne(query);
      const update = async (executor: Db) =>
        (await executor.executeQuery(query as CompiledQuery<FinishedRow>)).rows[0];
      return batched
        ? batched(
            (trx) => finishIn(trx, update, onFinished, withFinal),
            () => finishing(update, withFinal),
          )
        : finishing(update, withFinal);
    },

    /**
     * Extends `owner`'s lease of an unfinished task; false when it is no longer theirs. Renewals are
     * on no call's path: on SQLite those of one turn (a burst's tasks beat together) share its commit.
     */
    renew: (taskId: string, owner: string, expiresAt: number): Promise<boolean> =>
      inTurn(renewal(expiresAt, taskId, owner)),
  };
}
