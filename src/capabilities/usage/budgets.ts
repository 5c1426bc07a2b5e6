import { sql } from 'kysely';
import type { BudgetsReport } from '../../base/contract/usage.js';
import { BudgetExceeded, InvalidInput, NotFound } from '../../base/domain/errors.js';
import { formatUsd } from '../../base/domain/money.js';
import type { Clock } from '../../base/runtime/clock.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import { sumTaskSpend } from '../tasks/index.js';
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

/** Whose budget: an account's, or one of its API keys' (`key_…`). */
type BudgetOwner = { accountId: string } | { keyId: string };

type BudgetChange = { dailyMicros?: number | null; monthlyMicros?: number | null };

function checkChange(change: BudgetChange): void {
  for (const [field, value] of [
    ['daily', change.dailyMicros],
    ['monthly', change.monthlyMicros],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (!Number.isSafeInteger(value) || value < 0 || value > MAX_BUDGET_MICROS)
      throw new InvalidInput(`${field} budget must be between $0 and $1,000,000,000`, field);
  }
}

/**
 * Budgets per account and UTC day and month (`account_budgets`), held at the door of generation the
 * way tier quotas are: each task carries the most it can cost (its reservation) from its creating
 * transaction, so spend is counted from the tasks — a completed task its cost, an unfinished one
 * its reservation, a failed one nothing — and admissions of one account are serialised (SQLite's
 * single writer; the same advisory lock as tier admission on PostgreSQL), so concurrent requests
 * cannot overshoot. Completion settles the real cost and releases the rest; a failure releases all.
 */
export function createBudgets({ db, clock }: { db: Db; clock: Clock }) {
  const deps: BudgetsDeps = { db, clock, reads: budgetReads(db) };
  return {
    /** The account's budgets; both null when none is set. */
    async get(accountId: string): Promise<Budget> {
      return (await budgetOf(db, deps.reads, { accountId })) ?? NO_BUDGET;
    },

    /** An API key's budgets; both null when none is set. */
    async getKey(keyId: string): Promise<Budget> {
      return (await budgetOf(db, deps.reads, { keyId })) ?? NO_BUDGET;
    },

    /**
     * Sets an API key's budgets, as `set` does an account's (the CLI's `accounts set-budget --key`):
     * the caller names a key of `accountId` (the accounts capability finds it). A key's requests are
     * held to its budgets and to its account's.
     */
    setKey: (accountId: string, keyId: string, change: BudgetChange): Promise<Budget> =>
      setKeyBudget(deps, accountId, keyId, change),

    /**
     * Sets an account's budgets (the CLI's `accounts set-budget`, the operator console): a number
     * sets that period's budget, null removes it, undefined leaves it as it is. The next admission
     * holds to it, on every node (it is read in each creating transaction).
     */
    set: (accountId: string, change: BudgetChange): Promise<Budget> =>
      setAccountBudget(deps, accountId, change),

    /**
     * Inside the transaction that has just written the request's tasks with their reservations:
     * refuses (budget_exceeded, which rolls it back) when they take the account over a budget.
     * `requestedMicros` is what this request reserved (for the message).
     */
    admitIn: (executor: Db, caller: BudgetCaller, requestedMicros: number): Promise<void> =>
      admitIn(executor, deps, caller, requestedMicros),

    /** The budgets in force and where they stand now; null when the account has none. */
    status: (accountId: string, keyId?: string): Promise<BudgetsReport | null> =>
      budgetStatus(deps, accountId, keyId),
  };
}

const NO_BUDGET: Budget = { dailyMicros: null, monthlyMicros: null };

/** Who asks to be admitted: the account, and the API key it used if any. */
interface BudgetCaller {
  id: string;
  apiKey?: { id: string; name: string } | undefined;
}

/** What the budgets work with: the store, the clock, and the budget reads compiled once. */
interface BudgetsDeps {
  db: Db;
  clock: Clock;
  reads: ReturnType<typeof budgetReads>;
}

/** The reads of an account's and a key's budgets (every generate request's admission): compiled once. */
function budgetReads(db: Db) {
  return {
    account: compiledOnce(1, (accountId: string) =>
      db
        .selectFrom('account_budgets')
        .select(['daily_micros', 'monthly_micros'])
        .where('account_id', '=', accountId),
    ),
    key: compiledOnce(1, (keyId: string) =>
      db.selectFrom('key_budgets').select(['daily_micros', 'monthly_micros']).where('key_id', '=', keyId),
    ),
  };
}

/** The budget of an account or key; undefined when it has none. */
async function budgetOf(
  executor: Db,
  reads: BudgetsDeps['reads'],
  owner: BudgetOwner,
): Promise<Budget | undefined> {
  const query = 'keyId' in owner ? reads.key(owner.keyId) : reads.account(owner.accountId);
  const [row] = (await executor.executeQuery(query)).rows;
  if (!row || (row.daily_micros === null && row.monthly_micros === null)) return undefined;
  return {
    dailyMicros: row.daily_micros === null ? null : Number(row.daily_micros),
    monthlyMicros: row.monthly_micros === null ? null : Number(row.monthly_micros),
  };
}

/** The budget after `change`: undefined fields keep the current value. */
function changed(current: Budget, change: BudgetChange) {
  return {
    daily_micros: change.dailyMicros === undefined ? current.dailyMicros : change.dailyMicros,
    monthly_micros: change.monthlyMicros === undefined ? current.monthlyMicros : change.monthlyMicros,
  };
}

/** See `setKey` on the budgets. */
async function setKeyBudget(
  { db, clock, reads }: BudgetsDeps,
  accountId: string,
  keyId: string,
  change: BudgetChange,
): Promise<Budget> {
  checkChange(change);
  const next = changed((await budgetOf(db, reads, { keyId })) ?? NO_BUDGET, change);
  const now = clock.now();
  await db
    .insertInto('key_budgets')
    .values({ key_id: keyId, account_id: accountId, ...next, updated_at: now })
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ ...next, updated_at: now }))
    .execute();
  return { dailyMicros: next.daily_micros, monthlyMicros: next.monthly_micros };
}

/** See `set` on the budgets. */
async function setAccountBudget(
  { db, clock, reads }: BudgetsDeps,
  accountId: string,
  change: BudgetChange,
): Promise<Budget> {
  checkChange(change);
  const exists = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  if (!exists) throw new NotFound('No such account');
  const now = clock.now();
  const next = changed((await budgetOf(db, reads, { accountId })) ?? NO_BUDGET, change);
  await db
    .insertInto('account_budgets')
    .values({ account_id: accountId, ...next, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...next, updated_at: now }))
    .execute();
  return { dailyMicros: next.daily_micros, monthlyMicros: next.monthly_micros };
}

/** See `admitIn` on the budgets. */
async function admitIn(
  executor: Db,
  { clock, reads }: BudgetsDeps,
  caller: BudgetCaller,
  requestedMicros: number,
): Promise<void> {
  const key = caller.apiKey;
  const [accountBudget, keyBudget] = await Promise.all([
    budgetOf(executor, reads, { accountId: caller.id }),
    key ? budgetOf(executor, reads, { keyId: key.id }) : undefined,
  ]);
  if (!accountBudget && !keyBudget) return;
  // One lock per account: a key's admissions are its account's too.
  if (dialectOf(executor) === 'postgres')
    await sql`select pg_advisory_xact_lock(${sql.lit(ADMISSION_LOCK_KEY)}, hashtext(${caller.id}))`.execute(
      executor,
    );
  const held = { executor, now: clock.now(), requestedMicros };
  await holdTo(held, accountBudget, { accountId: caller.id }, "the account's");
  if (key) await holdTo(held, keyBudget, { keyId: key.id }, `the API key "${key.name}" (${key.id})'s`);
}

/** Refuses (budget_exceeded) when the owner's spend, this request's reservations included, is over `budget`. */
async function holdTo(
  { executor, now, requestedMicros }: { executor: Db; now: number; requestedMicros: number },
  budget: Budget | undefined,
  owner: BudgetOwner,
  whose: string,
): Promise<void> {
  if (!budget) return;
  const periods = periodsOf(now);
  // The sums include this request's own reservations, written earlier in the transaction.
  const spend = await sumTaskSpend(executor, owner, periods);
  const over = (limit: number | null, used: number, per: string, resetsAt: number) => {
    if (limit === null || used <= limit) return;
    const before = used - requestedMicros;
    throw new BudgetExceeded(
      `Budget exceeded: ${whose} ${per} budget is ${formatUsd(limit)}; ${formatUsd(Math.max(0, before))} spent or reserved, this request may cost up to ${formatUsd(requestedMicros)} (resets at ${new Date(resetsAt).toISOString()})`,
      resetsAt - now,
    );
  };
  over(budget.monthlyMicros, spend.thisMonth, 'monthly (UTC)', periods.nextMonth);
  over(budget.dailyMicros, spend.today, 'daily (UTC)', periods.nextDay);
}

/** See `status` on the budgets. */
async function budgetStatus(
  { db, clock, reads }: BudgetsDeps,
  accountId: string,
  keyId: string | undefined,
): Promise<BudgetsReport | null> {
  const [budget, keyBudget] = await Promise.all([
    budgetOf(db, reads, { accountId }),
    keyId === undefined ? undefined : budgetOf(db, reads, { keyId }),
  ]);
  if (!budget && !keyBudget) return null;
  const periods = periodsOf(clock.now());
  const statusOf = async (of: Budget | undefined, owner: BudgetOwner) => {
    if (!of) return { daily: null, monthly: null };
    const spend = await sumTaskSpend(db, owner, periods);
    return {
      daily: standing(of.dailyMicros, spend.today, spend.reservedToday, periods.nextDay),
      monthly: standing(of.monthlyMicros, spend.thisMonth, spend.reservedThisMonth, periods.nextMonth),
    };
  };
  const [own, ofKey] = await Promise.all([
    statusOf(budget, { accountId }),
    keyId === undefined || !keyBudget ? undefined : statusOf(keyBudget, { keyId }),
  ]);
  return { ...own, key: ofKey && keyId !== undefined ? { key_id: keyId, ...ofKey } : null };
}

/** Where one budget stands; null without a limit. */
function standing(
  limit: number | null,
  spent: number,
  reserved: number,
  resetsAt: number,
): BudgetStatus | null {
  return limit === null
    ? null
    : {
        limit_micros: limit,
        spent_micros: spent,
        reserved_micros: reserved,
        remaining_micros: Math.max(0, limit - spent),
        resets_at: resetsAt,
      };
}

export type Budgets = ReturnType<typeof createBudgets>;
