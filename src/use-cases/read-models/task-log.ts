import { sql } from 'kysely';
import type { TaskLife, TaskLogQuery, TaskLogRow } from '../../base/contract/admin-tasks.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { TaskFallback } from '../../infra/store/schema/tasks.js';
import { taskLifeOf } from './task-life.js';
import { contains, type ErrorTerm, errorTerm, errorTermChooser } from './task-log-error-text.js';

/**
 * The operator's task log (issue 43): every task of every account, newest first, where tasks meet
 * their generations (the prompt's model, also on the task since 0068) and accounts (the e-mail). Tasks belong to src/capabilities/tasks,
 * generations to src/use-cases/generations, accounts to src/capabilities/accounts: this module only
 * reads them together. Each filter's page is walked by an index in (created_at, id) order (migration
 * 0062, 0068): every task, failed tasks, tasks with an error, by model, route or provider; by account and by key the older indexes.
 */

/** The keyset of a page's last row: its created_at and id, as `created_at.id` in base64url. */
export const cursorOf = (row: { created_at: number; id: string }): string =>
  Buffer.from(`${row.created_at}.${row.id}`).toString('base64url');

export function parseCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const createdAt = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot <= 0 || !Number.isSafeInteger(createdAt) || id.length === 0) return undefined;
  return { createdAt, id };
}

/** The row's columns the log answers with. */
const ROW_COLUMNS = [
  't.id',
  't.generation_id',
  't.account_id',
  't.api_key_id',
  't.provider',
  't.upstream_model',
  't.status',
  't.error',
  't.created_at',
  't.started_at',
  't.finished_at',
  't.cost_micros',
  't.cost_absorbed_micros',
  't.submits',
  't.upstream_refusals',
  't.fallbacks_json',
  'g.model',
  'a.email',
] as const;

function baseQuery(db: Db) {
  return db
    .selectFrom('tasks as t')
    .innerJoin('generations as g', 'g.id', 't.generation_id')
    .leftJoin('accounts as a', 'a.id', 't.account_id')
    .select(ROW_COLUMNS);
}
type LogRow = Awaited<ReturnType<ReturnType<typeof baseQuery>['executeTakeFirstOrThrow']>>;

const numberOrNull = (value: number | string | null | undefined) =>
  value === null || value === undefined ? null : Number(value);

export const fallbacksOf = (json: string | null | undefined): TaskFallback[] =>
  json ? (JSON.parse(json) as TaskFallback[]) : [];

export function logRowOf(row: LogRow, now: number): TaskLogRow {
  const created = Number(row.created_at);
  const started = numberOrNull(row.started_at);
  const finished = numberOrNull(row.finished_at);
  return {
    id: row.id,
    generation_id: row.generation_id,
    account_id: row.account_id,
    account_email: row.email ?? null,
    api_key_id: row.api_key_id,
    model: row.model,
    route: `${row.provider}/${row.upstream_model}`,
    provider: row.provider,
    status: row.status,
    error: row.error,
    created_at: created,
    started_at: started,
    finished_at: finished,
    cost_micros: numberOrNull(row.cost_micros),
    absorbed_micros: numberOrNull(row.cost_absorbed_micros),
    queue_wait_ms: Math.max(0, (started ?? finished ?? now) - created),
    upstream_ms: started === null ? null : Math.max(0, (finished ?? now) - started),
    attempts: Number(row.submits ?? 0),
    refusals: Number(row.upstream_refusals ?? 0),
    fallbacks: fallbacksOf(row.fallbacks_json).length,
  };
}

/**
 * How a page's filters are put (page() chooses): the error text's term, and the accounts the
 * `account` filter names, when page() has read them (as values, a term the planner can walk an
 * account's index by; as a subquery, it walks another index and tests each row).
 */
export interface PagePlan {
  errors?: ErrorTerm;
  accountIds?: string[];
}

/** Accounts an `account` filter may name before it is kept as a subquery. */
const NAMED_ACCOUNTS = 100;

/** The accounts whose id is `text` or whose e-mail contains it (case-insensitive). */
function accountsNamed(db: Db, text: string) {
  return db
    .selectFrom('accounts')
    .select('id')
    .where((w) => w.or([w('id', '=', text), contains('email', text)]));
}

/** The query's filters, each a condition on the walk; the route splits at its first `/`. */
function filtered(db: Db, query: TaskLogQuery, plan: PagePlan) {
  let q = baseQuery(db);
  if (plan.accountIds) q = q.where('t.account_id', 'in', plan.accountIds);
  else if (query.account !== undefined) {
    const account = query.account;
    q = q.where('t.account_id', 'in', () => accountsNamed(db, account));
  }
  if (query.key !== undefined) q = q.where('t.api_key_id', '=', query.key);
  if (query.model !== undefined) q = q.where('t.model', '=', query.model);
  if (query.route !== undefined) {
    const slash = query.route.indexOf('/');
    const [provider, upstreamModel] =
      slash < 0 ? [query.route, ''] : [query.route.slice(0, slash), query.route.slice(slash + 1)];
    q = q.where('t.provider', '=', provider).where('t.upstream_model', '=', upstreamModel);
  }
  if (query.provider !== undefined) q = q.where('t.provider', '=', query.provider);
  // The status as a literal (one of four): a partial index (tasks_log_failed) answers only a term
  // that names its value.
  if (query.status !== undefined)
    q = q.where(sql<boolean>`${sql.ref('t.status')} = ${sql.lit(query.status)}`);
  if (query.since !== undefined) q = q.where('t.created_at', '>=', query.since);
  if (query.until !== undefined) q = q.where('t.created_at', '<', query.until);
  // Only tasks with an error can contain the text: the term names the partial indexes' condition
  // (tasks_log_errored, tasks_log_error_trgm), so a text no task has never walks every task.
  if (query.error !== undefined)
    q = q.where('t.error', 'is not', null).where(errorTerm(db, query.error, plan.errors ?? 'pattern'));
  return q;
}

type After = { createdAt: number; id: string };

export function createTaskLog({ db, clock }: { db: Db; clock: Clock }) {
  const errorTermOf = errorTermChooser(db);

  /** The filtered rows after the cursor's row, as one row comparison (the index's bound on both stores). */
  function rowsAfter(query: TaskLogQuery, after: After | undefined, plan: PagePlan) {
    const q = filtered(db, query, plan);
    if (!after) return q;
    return q
      .where('t.created_at', '<=', after.createdAt)
      .where(
        sql<boolean>`(${sql.ref('t.created_at')}, ${sql.ref('t.id')}) < (${after.createdAt}, ${after.id})`,
      );
  }

  /** The statement of one page (also what the query-plan test explains). */
  function pageQuery(query: TaskLogQuery, after?: After, plan: PagePlan = {}) {
    return rowsAfter(query, after, plan)
      .orderBy('t.created_at', 'desc')
      .orderBy('t.id', 'desc')
      .limit(query.limit + 1);
  }

  /** The page's plan: the accounts named (when few), then the error text's term. */
  async function planOf(query: TaskLogQuery, after: After | undefined): Promise<PagePlan> {
    let accountIds: string[] | undefined;
    if (query.account !== undefined) {
      const named = await accountsNamed(db, query.account)
        .limit(NAMED_ACCOUNTS + 1)
        .execute();
      if (named.length <= NAMED_ACCOUNTS) accountIds = named.map((row) => row.id);
    }
    const errors = await errorTermOf(query.error, after);
    return accountIds ? { errors, accountIds } : { errors };
  }

  return {
    pageQuery,
    /**
     * One page of the log, newest first; `next_cursor` names the page's last row, so a page read
     * later is the same rows whatever was created since (new tasks come before the first page).
     * Undefined when the cursor is not one this gave.
     */
    async page(
      query: TaskLogQuery,
    ): Promise<{ tasks: TaskLogRow[]; next_cursor: string | null } | undefined> {
      const after = query.cursor === undefined ? undefined : parseCursor(query.cursor);
      if (query.cursor !== undefined && !after) return undefined;
      const plan = await planOf(query, after);
      if (plan.accountIds?.length === 0) return { tasks: [], next_cursor: null };
      const rows = await pageQuery(query, after, plan).execute();
      const now = clock.now();
      const tasks = rows.slice(0, query.limit).map((row) => logRowOf(row, now));
      const last = tasks.at(-1);
      return { tasks, next_cursor: rows.length > query.limit && last ? cursorOf(last) : null };
    },
    /** One task's life, from what the engine records; undefined when there is no such task. */
    async life(taskId: string): Promise<TaskLife | undefined> {
      const row = await baseQuery(db).where('t.id', '=', taskId).executeTakeFirst();
      if (!row) return undefined;
      return taskLifeOf(db, logRowOf(row, clock.now()), row.fallbacks_json);
    },
  };
}

export type TaskLog = ReturnType<typeof createTaskLog>;
