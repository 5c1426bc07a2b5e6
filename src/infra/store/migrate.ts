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
  if (dialectOf(db) === 'sqlite') return runMigrator(db);
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    try {
      await runMigrator(connection);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    }
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
