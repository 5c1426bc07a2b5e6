import type { Kysely, Migration } from 'kysely';

/**
 * Deletion that reaches storage (issue 47). `blob_purges` is the durable to-do list of files to
 * remove: a row per blob key, written in the same transaction as the row delete that stopped using
 * it (a work purged, an upload deleted). The housekeeping job claims due rows with a lease (one node
 * per file), removes the file and its renditions unless another row still uses the key, and keeps
 * the row as done (`done_at`): /files answers 410 for it. `generations.purged_at` marks a work whose
 * files are gone (deleted past the Undo window, or expired); the row and its tasks stay, as
 * task records and cost history do.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('blob_purges')
      .addColumn('blob_key', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text')
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('due_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('done_at', 'bigint')
      .execute();
    await db.schema.createIndex('blob_purges_due').on('blob_purges').columns(['done_at', 'due_at']).execute();
    await db.schema.alterTable('generations').addColumn('purged_at', 'bigint').execute();
  },
};
