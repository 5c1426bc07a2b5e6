import type { Kysely, Migration } from 'kysely';

/**
 * The tier policies in the store (issue 43): every version of the policy document, the highest in
 * force, the history kept. A version is written by a start that seeds or imports ATELIER_POLICY_FILE
 * (`source` 'file', with the file's SHA-256), or by an operator's edit (admin API or console). The
 * primary key makes two nodes writing the same next version at once keep one of them.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('policy_versions')
      .addColumn('version', 'integer', (c) => c.primaryKey())
      .addColumn('document_json', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('file_sha256', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute();
  },
};
