import type { Kysely, Migration } from 'kysely';

/**
 * Actions and seeds (issue 45): a generation made by an action on a picked image names the action
 * and its settings (JSON: `{"scale":2}`, `{"strength":"strong"}`, `{"factor":1.5}`), besides the
 * lineage columns of 0069 that name the image; each task keeps the seed its upstream was sent
 * (0 to 2^31 − 1, an `integer` on both stores), null where the route takes none.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('generations').addColumn('action', 'text').execute();
    await db.schema.alterTable('generations').addColumn('action_json', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('seed', 'integer').execute();
  },
};
