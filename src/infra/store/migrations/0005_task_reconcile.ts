import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('tasks')
      .addColumn('needs_reconcile', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
