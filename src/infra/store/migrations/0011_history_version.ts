import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Moves with every change of what an account's history pages show (a generation created,
    // rejected or removed, a task completed), in the same transaction: a page kept in memory is
    // good while its account's version is the one it was read under.
    await db.schema
      .alterTable('generation_counts')
      .addColumn('history_version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
