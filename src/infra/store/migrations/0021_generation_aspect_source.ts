import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // 1 when an edit or fusion named no aspect: the providers keep the reference's shape (issue 26).
    await db.schema
      .alterTable('generations')
      .addColumn('aspect_from_reference', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
