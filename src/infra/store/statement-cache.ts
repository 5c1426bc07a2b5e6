import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** How many distinct SQL texts keep their prepared statement (the app issues a few hundred at most). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls `prepare()` on every execution, and better-sqlite3 compiles the SQL
 * each time (about a quarter of a poll's CPU). This hands Kysely the connection with a bounded,
 * least-recently-used cache of prepared statements keyed by SQL text. Reusing a statement is safe
 * here: the connection is used by one query at a time (Kysely's single-connection driver holds a
 * mutex), and a statement being iterated (`stream()`) is never handed out again until it is done.
 */
export function withStatementCache(
  connection: SqliteConnection,
  capacity = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => {
      statements.clear();
      connection.close();
    },
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached !== undefined && !cached.busy) {
        // Refresh its place: Map keeps insertion order, so the first key is the least recent.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = connection.prepare(sql);
      if (cached === undefined) {
        statements.set(sql, statement);
        if (statements.size > capacity) statements.delete(statements.keys().next().value as string);
      }
      return statement;
    },
  };
}
