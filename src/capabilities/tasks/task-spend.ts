import { sql } from 'kysely';
import type { Db } from '../../infra/store/database.js';

/** Money an account's tasks have spent or hold, in micro-dollars, since two instants. */
export interface TaskSpend {
  /** Completed tasks' costs plus unfinished tasks' reservations, created since `dayStart`. */
  today: number;
  thisMonth: number;
  /** The part of each that is still reserved (unfinished tasks), not yet settled. */
  reservedToday: number;
  reservedThisMonth: number;
}

/**
 * For budgets, read through `executor` (the creating transaction, so its own new tasks count): what
 * the account's tasks created since `dayStart` and since `monthStart` (`dayStart` ≥ `monthStart`)
 * cost — a completed task its cost, an unfinished one the most it can cost (its reservation), a
 * failed one nothing. Tasks alone answer it (counted from the rows, no counter to drift), by the
 * (account, created_at) index.
 */
export async function sumTaskSpend(
  executor: Db,
  /** An account's tasks, or those one of its API keys created (by the (api_key_id, created_at) index). */
  owner: { accountId: string } | { keyId: string },
  since: { dayStart: number; monthStart: number },
): Promise<TaskSpend> {
  const spent = sql<number>`case when ${sql.ref('status')} = 'completed' then coalesce(${sql.ref('cost_micros')}, 0) when ${sql.ref('status')} = 'failed' then 0 else ${sql.ref('cost_reserved_micros')} end`;
  const reserved = sql<number>`case when ${sql.ref('status')} in ('queued', 'in_progress') then ${sql.ref('cost_reserved_micros')} else 0 end`;
  const today = (value: typeof spent) =>
    sql<number>`case when ${sql.ref('created_at')} >= ${since.dayStart} then ${value} else 0 end`;
  const query = executor.selectFrom('tasks');
  const ofOwner =
    'keyId' in owner
      ? query.where('api_key_id', '=', owner.keyId)
      : query.where('account_id', '=', owner.accountId);
  const row = await ofOwner
    .select([
      sql<number | null>`sum(${spent})`.as('month'),
      sql<number | null>`sum(${today(spent)})`.as('day'),
      sql<number | null>`sum(${reserved})`.as('reserved_month'),
      sql<number | null>`sum(${today(reserved)})`.as('reserved_day'),
    ])
    .where('created_at', '>=', since.monthStart)
    .executeTakeFirst();
  return {
    today: Number(row?.day ?? 0),
    thisMonth: Number(row?.month ?? 0),
    reservedToday: Number(row?.reserved_day ?? 0),
    reservedThisMonth: Number(row?.reserved_month ?? 0),
  };
}

/** What the completed tasks of each pooled upstream key created since `since` cost (micro-dollars). */
export async function spendByUpstreamKey(db: Db, since: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tasks')
    .select(['upstream_key_id', sql<number | string | null>`sum(cost_micros)`.as('spent')])
    .where('upstream_key_id', 'is not', null)
    .where('created_at', '>=', since)
    .where('status', '=', 'completed')
    .groupBy('upstream_key_id')
    .execute();
  return new Map(rows.map((row) => [String(row.upstream_key_id), Number(row.spent ?? 0)]));
}
