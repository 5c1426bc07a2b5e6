import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Streaming on the OpenAI surface (issue 29): how many partial frames the request asked for
    // (0-3; 0 = no extra work), how many the engine has stored (blobs partials/<task>-<i>.png, gone
    // when the task ends), and the token usage the upstream reported with the result (JSON).
    await db.schema
      .alterTable('tasks')
      .addColumn('partial_images', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('tasks')
      .addColumn('partial_frames', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('tasks').addColumn('usage_json', 'text').execute();
  },
};
