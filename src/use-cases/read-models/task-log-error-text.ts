import { sql } from 'kysely';
import { type Db, dialectOf } from '../../infra/store/database.js';

/**
 * The task log's error-text filter. A page is the newest tasks whose error contains the text, and the
 * best plan depends on how many do. On SQLite the walk of the tasks with an error in the log's order
 * (tasks_log_errored, which holds the text) is cheap either way: one term, `pattern`. On PostgreSQL
 * the index cannot hold the text: a walk reads a table row per task with an error (0.3–0.6 s for a
 * text none of 70,000 errors contains), while the trigram index (tasks_log_error_trgm, migration 0068,
 * where pg_trgm could be installed) finds a rare text's tasks at once but a common text's tens of
 * thousands, all sorted (0.5 s). So PostgreSQL first counts the text's tasks by the trigram index, up
 * to RARE: fewer, and the page is those tasks (`rare`: their ids, then the other filters, sorted); as
 * many, and the text is common (`common`), so the page walks the log's order with a condition no index
 * answers (strpos, which the planner takes to hold for a third of the rows), so the walk is the log's
 * order or another filter's index (an account's, a model's), and stops at the page's last row.
 */
export type ErrorTerm = 'pattern' | 'rare' | 'common';

/** Matches up to which a text is rare: its tasks are found by the trigram index and sorted. */
const RARE = 200;

/** `lower(column) like '%text%'`, the text's own `%`, `_` and `\` taken literally. */
export function contains(column: string, text: string) {
  const escaped = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}

/** The tasks (as `e`) whose error contains `text`, after the cursor's row when there is one. */
function withErrorText(db: Db, text: string, after: { createdAt: number; id: string } | undefined) {
  const q = db.selectFrom('tasks as e').where('e.error', 'is not', null).where(contains('e.error', text));
  if (!after) return q;
  return q
    .where('e.created_at', '<=', after.createdAt)
    .where(
      sql<boolean>`(${sql.ref('e.created_at')}, ${sql.ref('e.id')}) < (${after.createdAt}, ${after.id})`,
    );
}

/** The condition on a task's error (`t`), as `term` says (see above). */
export function errorTerm(db: Db, text: string, term: ErrorTerm) {
  if (term === 'pattern') return contains('t.error', text);
  if (term === 'rare')
    return sql<boolean>`${sql.ref('t.id')} in (${withErrorText(db, text, undefined).select('e.id')})`;
  const position = dialectOf(db) === 'postgres' ? sql.raw('strpos') : sql.raw('instr');
  return sql<boolean>`${position}(lower(${sql.ref('t.error')}), ${text.toLowerCase()}) > 0`;
}

/** Which term a page's error text takes: `pattern` but on PostgreSQL with the trigram index. */
export function errorTermChooser(db: Db) {
  const hasTrigramIndex = trigramIndex(db);
  return async (
    text: string | undefined,
    after: { createdAt: number; id: string } | undefined,
  ): Promise<ErrorTerm> => {
    if (text === undefined || !(await hasTrigramIndex())) return 'pattern';
    const matches = withErrorText(db, text, after).select(sql.lit(1).as('one')).limit(RARE);
    const row = await db
      .selectFrom(matches.as('m'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n) < RARE ? 'rare' : 'common';
  };
}

/** Whether the store can count a text's tasks by a trigram index (PostgreSQL with pg_trgm); asked once. */
function trigramIndex(db: Db): () => Promise<boolean> {
  let known: Promise<boolean> | undefined;
  return () => {
    known ??=
      dialectOf(db) === 'postgres'
        ? sql<{ one: number }>`select 1 as one from pg_indexes where indexname = 'tasks_log_error_trgm'`
            .execute(db)
            .then((result) => result.rows.length > 0)
        : Promise.resolve(false);
    return known;
  };
}
