import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Issue 41: the quality tier a generation asked for (null: none, the upstream's auto); its tasks
    // send it upstream and their reservations follow it.
    await db.schema.alterTable('generations').addColumn('quality', 'text').execute();
  },
};
