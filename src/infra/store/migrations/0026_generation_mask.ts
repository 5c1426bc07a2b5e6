import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The blob key of an edit's mask (issue 29): fully transparent pixels say where to edit.
    await db.schema.alterTable('generations').addColumn('mask_key', 'text').execute();
  },
};
