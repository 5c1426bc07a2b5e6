import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Favourites and collections (issue 30), owned by src/capabilities/curation: per account, on generations
    // (works). A star is a row; a collection is a named list of works.
    await db.schema
      .createTable('starred_works')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('generation_id', 'text', (c) => c.notNull().references('generations.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('starred_works_pk', ['account_id', 'generation_id'])
      .execute();
    await db.schema
      .createTable('collections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // The name folded to lower case: one account's names are unique ignoring case.
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('collections_account_name', ['account_id', 'name_key'])
      .execute();
    await db.schema
      .createTable('collection_items')
      .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
      .addColumn('generation_id', 'text', (c) => c.notNull().references('generations.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('added_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('collection_items_pk', ['collection_id', 'generation_id'])
      .execute();
    // A page's marks: the collections each of its works is in.
    await db.schema
      .createIndex('collection_items_account_generation')
      .on('collection_items')
      .columns(['account_id', 'generation_id'])
      .execute();
  },
};
