import type { Kysely, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './dialect.js';

/**
 * The row guard of a lease query's "which rows are due" sub-select. On PostgreSQL the rows are
 * locked `FOR UPDATE SKIP LOCKED`, so workers leasing at the same moment each get different rows
 * instead of queueing on one another's locks. SQLite has a single writer: the conditional UPDATE
 * that re-checks the lease is the guard there, and the sub-select stays as it is.
 */
export function skipLockedOn<DB, TB extends keyof DB, O>(
  db: Pick<Kysely<unknown>, 'getExecutor'>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate().skipLocked() : query;
}
