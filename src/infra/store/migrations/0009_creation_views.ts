import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The website's creation view, per account: when it last cleared its finished cards, so a
    // reload (or another device) does not bring them back.
    await db.schema
      .createTable('creation_views')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('cleared_at', 'bigint', (c) => c.notNull())
      .execute();
    // The creation view's listing: an account's tasks of the last day, newest first.
    await db.schema
      .createIndex('tasks_account_created')
      .on('tasks')
      .columns(['account_id', 'created_at'])
      .execute();
  },
};
