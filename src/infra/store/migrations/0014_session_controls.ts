import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An account can be disabled (its key and sessions stop working); its session generation moves
    // whenever every session it has must end (a password change, disabling), on every node at once.
    await db.schema.alterTable('accounts').addColumn('disabled_at', 'bigint').execute();
    await db.schema
      .alterTable('accounts')
      .addColumn('session_generation', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // A session belongs to one generation of its account, is ended by inactivity (last_seen_at,
    // renewed at most once a minute) as well as by its absolute expiry, and is either a browser
    // session or a "keep me signed in" one (persistent), which lasts longer.
    await db.schema
      .alterTable('sessions')
      .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('persistent', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // Sessions started under the old 30-day rule had no idle timeout: they end, everyone signs in once.
    await sql`delete from sessions`.execute(db);
  },
};
