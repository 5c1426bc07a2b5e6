import { type Kysely, type MigrationProvider, Migrator, sql } from 'kysely';
import { dialectOf } from './dialect.js';
import { migrations } from './migrations/index.js';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Key of the session-level advisory lock that serialises migrations across nodes (PostgreSQL). */
const MIGRATION_LOCK_KEY = 7_413_920_551;

/**
 * Brings the schema up to date; throws with the failing migration's error. On PostgreSQL the whole
 * run — including the creation of the migrator's own tables, which Kysely does outside its lock —
 * holds `pg_advisory_lock` on one connection, so nodes that start together migrate once, in turn.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'sqlite') return migrateSqlite(db);
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    try {
      await runMigrator(connection);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    }
  });
}

/**
 * On SQLite the run is one transaction (Kysely's Migrator takes SQLite's DDL as non-transactional
 * and would commit each statement on its own: a fresh database's ~300 commits were most of its
 * migrations' time at start). SQLite's DDL is transactional, so the outcome is the same schema; a
 * failing migration now leaves the database as it was before the run, never half-migrated.
 * `BEGIN IMMEDIATE` takes the write lock at once: a second process starting on the same file waits
 * for it (busy_timeout), then finds the migrations done.
 */
async function migrateSqlite(db: Kysely<unknown>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      await runMigrator(connection);
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
    await sql`commit`.execute(connection);
  });
}

async function runMigrator(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`,
    );
  }
}
