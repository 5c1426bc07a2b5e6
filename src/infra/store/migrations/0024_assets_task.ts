import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // A task's result asset, looked up by the task at each completion (issue 27): without it the
    // lookup read every asset ever stored, once per finished task.
    await db.schema.createIndex('assets_task').on('assets').column('task_id').execute();
  },
};
