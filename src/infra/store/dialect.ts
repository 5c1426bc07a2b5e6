import { type Kysely, PostgresAdapter } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Which database `db` (or a transaction or connection of it) talks to, for the few queries that
 * must differ, e.g. `FOR UPDATE SKIP LOCKED` on PostgreSQL.
 */
export function dialectOf(db: Pick<Kysely<unknown>, 'getExecutor'>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
