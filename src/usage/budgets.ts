import { sql } from 'kysely';
import { BudgetExceeded, InvalidInput, NotFound } from '../domain/errors.js';
import { formatUsd } from '../domain/money.js';
import type { Clock } from '../runtime/clock.js';
import { type Db, dialectOf } from '../store/database.js';
import { sumTaskSpend } from '../tasks/task-spend.js';
import { ADMISSION_LOCK_KEY } from './tier-admission.js';
import { periodsOf } from './usage-days.js';

/** An account's budgets in micro-dollars; null = no budget for that period. */
export interface Budget {
  dailyMicros: number | null;
  monthlyMicros: number | null;
}

/** One budget in force and where it stands (GET /user/usage `budgets`). */
export interface BudgetStatus {
  limit_micros: number;
  /** Completed images' costs plus what unfinished ones hold. */
  spent_micros: number;
  /** The part of `spent_micros` still reserved by unfinished tasks. */
  reserved_micros: number;
  remaining_micros: number;
  /** When the period ends (ms since the epoch, UTC midnight). */
  resets_at: number;
}

/** Most a budget may be: $1,000,000,000 (keeps every sum a safe integer). */
export const MAX_BUDGET_MICROS = 1_000_000_000_000_000;

/**
 * Budgets per account and UTC day and month (`account_budgets`), held at the door of generation the
 * way tier quotas are: each task carries the most it can cost (its reservation) from its creating
 * transaction, so spend is counted from the tasks — a completed task its cost, an unfinished one
 * its reservation, a failed one nothing — and admissions of one account are serialised (SQLite's
 * single writer; the same advisory lock as tier admission on PostgreSQL), so concurrent requests
 * cannot overshoot. Completion settles the real cost and releases the rest; a failure releases all.
 */
export function createBudgets(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  async function budgetOf(executor: Db, accountId: string): Promise<Budget | undefined> {
    const row = await executor
      .selectFrom('account_budgets')
      .select(['daily_micros', 'monthly_micros'])
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row || (row.daily_micros === null && row.monthly_micros === null)) return undefined;
    return {
      dailyMicros: row.daily_micros === null ? null : Number(row.daily_micros),
      monthlyMicros: row.monthly_micros === null ? null : Number(row.monthly_micros),
    };
  }

  return {
    /** The account's budgets; both null when none is set. */
    async get(accountId: string): Promise<Budget> {
      return (await budgetOf(db, accountId)) ?? { dailyMicros: null, monthlyMicros: null };
    },

    /**
     * Sets an account's budgets (the CLI's `accounts set-budget`, the operator console): a number
     * sets that period's budget, null removes it, undefined leaves it as it is. The next admission
     * holds to it, on every node (it is read in each creating transaction).
     */
    async set(accountId: string, change: { dailyMicros?: number | null; monthlyMicros?: number | null }) {
      for (const [field, value] of [
        ['daily', change.dailyMicros],
        ['monthly', change.monthlyMicros],
      ] as const) {
        if (value === undefined || value === null) continue;
        if (!Number.isSafeInteger(value) || value < 0 || value > MAX_BUDGET_MICROS)
          throw new InvalidInput(`${field} budget must be between $0 and $1,000,000,000`, field);
      }
      const exists = await db
        .selectFrom('accounts')
        .select('id')
        .where('id', '=', accountId)
        .executeTakeFirst();
      if (!exists) throw new NotFound('No such account');
      const now = clock.now();
      const current = await this.get(accountId);
      const next = {
        daily_micros: change.dailyMicros === undefined ? current.dailyMicros : change.dailyMicros,
        monthly_micros: change.monthlyMicros === undefined ? current.monthlyMicros : change.monthlyMicros,
      };
      await db
        .insertInto('account_budgets')
        .values({ account_id: accountId, ...next, updated_at: now })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...next, updated_at: now }))
        .execute();
      return { dailyMicros: next.daily_micros, monthlyMicros: next.monthly_micros };
    },

    /**
     * Inside the transaction that has just written the request's tasks with their reservations:
     * refuses (budget_exceeded, which rolls it back) when they take the account over a budget.
     * `requestedMicros` is what this request reserved (for the message).
     */
    async admitIn(executor: Db, caller: { id: string }, requestedMicros: number): Promise<void> {
      const budget = await budgetOf(executor, caller.id);
      if (!budget) return;
      if (dialectOf(executor) === 'postgres')
        await sql`select pg_advisory_xact_lock(${sql.lit(ADMISSION_LOCK_KEY)}, hashtext(${caller.id}))`.execute(
          executor,
        );
      const now = clock.now();
      const periods = periodsOf(now);
      // The sums include this request's own reservations, written earlier in the transaction.
      const spend = await sumTaskSpend(executor, caller.id, periods);
      const over = (limit: number | null, used: number, per: string, resetsAt: number) => {
        if (limit === null || used <= limit) return;
        const before = used - requestedMicros;
        throw new BudgetExceeded(
          `Budget exceeded: the account's ${per} budget is ${formatUsd(limit)}; ${formatUsd(Math.max(0, before))} spent or reserved, this request may cost up to ${formatUsd(requestedMicros)} (resets at ${new Date(resetsAt).toISOString()})`,
          resetsAt - now,
        );
      };
      over(budget.monthlyMicros, spend.thisMonth, 'monthly (UTC)', periods.nextMonth);
      over(budget.dailyMicros, spend.today, 'daily (UTC)', periods.nextDay);
    },

    /** The budgets in force and where they stand now; null when the account has none. */
    async status(
      accountId: string,
    ): Promise<{ daily: BudgetStatus | null; monthly: BudgetStatus | null } | null> {
      const budget = await budgetOf(db, accountId);
      if (!budget) return null;
      const periods = periodsOf(clock.now());
      const spend = await sumTaskSpend(db, accountId, periods);
      const status = (limit: number | null, spent: number, reserved: number, resetsAt: number) =>
        limit === null
          ? null
          : {
              limit_micros: limit,
              spent_micros: spent,
              reserved_micros: reserved,
              remaining_micros: Math.max(0, limit - spent),
              resets_at: resetsAt,
            };
      return {
        daily: status(budget.dailyMicros, spend.today, spend.reservedToday, periods.nextDay),
        monthly: status(budget.monthlyMicros, spend.thisMonth, spend.reservedThisMonth, periods.nextMonth),
      };
    },
  };
}

export type Budgets = ReturnType<typeof createBudgets>;
