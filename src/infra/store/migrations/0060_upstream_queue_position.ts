import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An upstream's own queue (fal's IN_QUEUE): while a submitted task waits there, `waiting_for` is
    // `upstream_queue` and this is its place as the upstream last said it (1 = next). Null otherwise.
    await db.schema.alterTable('tasks').addColumn('upstream_queue_position', 'integer').execute();
  },
};
