import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An upload's file name as the person chose it (issue 30): the library captions uploads with it
    // instead of the content-addressed name. Null for results and for uploads stored before it.
    await db.schema.alterTable('assets').addColumn('original_name', 'text').execute();
  },
};
