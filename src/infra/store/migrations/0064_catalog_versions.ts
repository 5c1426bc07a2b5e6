import type { Kysely, Migration } from 'kysely';

/**
 * The model catalog in the store (issue 43): every version of the catalog document, the highest in
 * force on every node. Version 1 is seeded from the catalog file (ATELIER_CATALOG or the built-in
 * default) on the first start; each edit through the admin API or the console, and each start whose
 * file changed, adds the next version. The primary key makes two writers of one version impossible:
 * the second insert finds it taken (insert-if-absent) and reads again.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('catalog_versions')
      .addColumn('version', 'integer', (c) => c.primaryKey())
      .addColumn('document_json', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      // The sha256 of the file's bytes, for a version read from a file; null for an edit.
      .addColumn('file_sha256', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute();
  },
};
