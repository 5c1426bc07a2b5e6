import { type Expression, sql } from 'kysely';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { FinishedTask } from '../tasks/index.js';
import { dayOf } from './usage-days.js';

/** One row of usage: an account's images of one model that ended on one UTC day. */
export interface UsageRow {
  account_id: string;
  day: string;
  model: string;
  completed: number;
  failed: number;
  /** What the completed images cost, in micro-dollars. */
  cost_micros: number;
  /** What upstreams billed beyond quotes' maxima on them, absorbed by the operator (not in cost_micros). */
  absorbed_micros: number;
}

/**
 * The account id the usage of erased accounts is counted under in a report of every account: their
 * anonymous totals (`usage_erased`), in the deployment's totals, never listed as an account.
 */
export const ERASED_ACCOUNTS = '(erased accounts)';

/** Store queries of the usage table (`usage_daily`), owned by the usage capability. */
export function createUsageRepository({
  db,
  modelOf,
}: {
  db: Db;
  /** A generation's catalog model as a subquery (the generations capability's; the root wires it). */
  modelOf: (executor: Db, generationId: string) => Expression<string>;
}) {
  // Built and compiled once: it runs in every task's final write. The counts are bound in VALUES
  // (typed by their columns on PostgreSQL); a row already there adds the new row's (`excluded`).
  const countFinished = compiledOnce(
    7,
    (
      accountId: string,
      day: string,
      generationId: string,
      completed: number,
      failed: number,
      cost: number,
      absorbed: number,
    ) =>
      db
        .insertInto('usage_daily')
        .values({
          account_id: accountId,
          day,
          model: modelOf(db, generationId),
          completed,
          failed,
          cost_micros: cost,
          absorbed_micros: absorbed,
        })
        .onConflict((oc) =>
          oc.columns(['account_id', 'day', 'model']).doUpdateSet({
            completed: sql<number>`${sql.ref('usage_daily.completed')} + ${sql.ref('excluded.completed')}`,
            failed: sql<number>`${sql.ref('usage_daily.failed')} + ${sql.ref('excluded.failed')}`,
            cost_micros: sql<number>`${sql.ref('usage_daily.cost_micros')} + ${sql.ref('excluded.cost_micros')}`,
            absorbed_micros: sql<number>`${sql.ref('usage_daily.absorbed_micros')} + ${sql.ref('excluded.absorbed_micros')}`,
          }),
        ),
  );
  return {
    /**
     * Counts a task that has just ended, inside the transaction of the write that ended it (so once
     * per task): under the UTC day of its end and its generation's catalog `model` (`modelOf`,
     * embedded in this one statement).
     */
    async recordFinished(executor: Db, task: FinishedTask): Promise<void> {
      const completed = task.status === 'completed' ? 1 : 0;
      const day = dayOf(Number(task.finished_at ?? task.created_at));
      // Only a completed task costs (a failed one costs nothing), and only one can have absorbed.
      const micros = (value: number | null | undefined) =>
        task.status === 'completed' ? Math.max(0, Math.trunc(Number(value ?? 0))) : 0;
      await executor.executeQuery(
        countFinished(
          task.account_id,
          day,
          task.generation_id,
          completed,
          1 - completed,
          micros(task.cost_micros),
          micros(task.cost_absorbed_micros),
        ),
      );
    },

    /**
     * Usage rows from `from` to `to` (UTC days, included), of one account or of all, by day then
     * model; all accounts' include the erased accounts' totals, under ERASED_ACCOUNTS.
     */
    async rows(accountId: string | undefined, from: string, to: string): Promise<UsageRow[]> {
      let query = db.selectFrom('usage_daily').selectAll().where('day', '>=', from).where('day', '<=', to);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      const erased =
        accountId !== undefined
          ? []
          : (
              await db
                .selectFrom('usage_erased')
                .selectAll()
                .where('day', '>=', from)
                .where('day', '<=', to)
                .execute()
            ).map((row) => ({ ...row, account_id: ERASED_ACCOUNTS }));
      const kept = await query.orderBy('day').orderBy('model').orderBy('account_id').execute();
      const rows = erased.length === 0 ? kept : [...kept, ...erased].sort(byDayModelAccount);
      // bigint columns come back as strings from PostgreSQL.
      return rows.map((row) => ({
        ...row,
        completed: Number(row.completed),
        failed: Number(row.failed),
        cost_micros: Number(row.cost_micros),
        absorbed_micros: Number(row.absorbed_micros),
      }));
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;

/** Rows by day, then model, then account (the order one query gives). */
function byDayModelAccount(a: UsageRow, b: UsageRow): number {
  return (
    a.day.localeCompare(b.day) || a.model.localeCompare(b.model) || a.account_id.localeCompare(b.account_id)
  );
}
