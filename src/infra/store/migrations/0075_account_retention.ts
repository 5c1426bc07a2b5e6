import type { Kysely, Migration } from 'kysely';

/**
 * Retention per account (issue 47): days a result and an upload of the account are kept, set by an
 * operator (admin API, console); null: the tier's or the deployment's. The shortest retention that
 * applies wins (docs/operations.md, Data lifecycle).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('retention_results_days', 'integer').execute();
    await db.schema.alterTable('accounts').addColumn('retention_uploads_days', 'integer').execute();
  },
};
