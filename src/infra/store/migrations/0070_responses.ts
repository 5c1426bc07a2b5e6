import type { Kysely, Migration } from 'kysely';

/**
 * Stored responses of the OpenAI Responses API (issue 44), per account: what a response asked and
 * the tasks its `image_generation_call` items are (the images themselves stay the tasks' results),
 * so `GET /v1/responses/{id}` rebuilds it and `previous_response_id` finds the image to refine.
 * Kept like generations (no expiry); a deletion only marks the row.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('responses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('previous_response_id', 'text')
      .addColumn('task_ids', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('responses_account_created')
      .on('responses')
      .columns(['account_id', 'created_at'])
      .execute();
  },
};
