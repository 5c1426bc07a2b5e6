import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The sign-in throttle lives in the database so that every node shares one budget per key.
    await db.schema
      .createTable('sign_in_failures')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
      .addColumn('blocked_until', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('sign_in_failures_last_failure')
      .on('sign_in_failures')
      .column('last_failure_at')
      .execute();
  },
};
