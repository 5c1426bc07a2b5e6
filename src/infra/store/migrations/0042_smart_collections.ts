import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Smart collections (issue 37), owned by src/edges/website: a saved search of Saved works, per
    // account — its name and the page's filters (search text, model, mode, dates, starred,
    // collection) as JSON. The name is unique per account ignoring case, as collections' are.
    await db.schema
      .createTable('smart_collections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('filters_json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('smart_collections_account_name', ['account_id', 'name_key'])
      .execute();
  },
};
