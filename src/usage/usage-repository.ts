import { type Expression, sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { FinishedTask } from '../tasks/task-finish.js';
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
}

/** Store queries of the usage table (`usage_daily`), owned by the usage capability. */
export function createUsageRepository({ db }: { db: Db }) {
  return {
    /**
     * Counts a task that has just ended, inside the transaction of the write that ended it (so once
     * per task): under the UTC day of its end and its generation's catalog `model` (a subquery the
     * generations capability gives, embedded in this one statement; the composition root wires it).
     */
    async recordFinished(executor: Db, task: FinishedTask, model: Expression<string>): Promise<void> {
      // Literals (0 or 1), not parameters: PostgreSQL would type a parameter in a select list as text.
      const completed = task.status === 'completed' ? 1 : 0;
      const day = dayOf(Number(task.finished_at ?? task.created_at));
      // Only a completed task costs (a failed one costs nothing); an integer, safe as a literal.
      const cost = task.status === 'completed' ? Math.max(0, Math.trunc(Number(task.cost_micros ?? 0))) : 0;
      await executor
        .insertInto('usage_daily')
        .values({
          account_id: task.account_id,
          day,
          model,
          completed: sql<number>`${sql.lit(completed)}`,
          failed: sql<number>`${sql.lit(1 - completed)}`,
          cost_micros: sql<number>`${sql.lit(cost)}`,
        })
        .onConflict((oc) =>
          oc.columns(['account_id', 'day', 'model']).doUpdateSet({
            completed: sql<number>`${sql.ref('usage_daily.completed')} + ${sql.lit(completed)}`,
            failed: sql<number>`${sql.ref('usage_daily.failed')} + ${sql.lit(1 - completed)}`,
            cost_micros: sql<number>`${sql.ref('usage_daily.cost_micros')} + ${sql.lit(cost)}`,
          }),
        )
        .execute();
    },

    /** Usage rows from `from` to `to` (UTC days, included), of one account or of all, by day then model. */
    async rows(accountId: string | undefined, from: string, to: string): Promise<UsageRow[]> {
      let query = db.selectFrom('usage_daily').selectAll().where('day', '>=', from).where('day', '<=', to);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      const rows = await query.orderBy('day').orderBy('model').orderBy('account_id').execute();
      // bigint columns come back as strings from PostgreSQL.
      return rows.map((row) => ({
        ...row,
        completed: Number(row.completed),
        failed: Number(row.failed),
        cost_micros: Number(row.cost_micros),
      }));
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
