import type { Kysely, Migration } from 'kysely';

/**
 * Erasing an account (issue 47). `accounts.erasing_at` marks an account whose erasure has begun: its
 * credentials are gone at once, and every node's lifecycle housekeeping finishes whatever an erase
 * interrupted (a crash, a task still running) until the row itself goes. `usage_erased` keeps the
 * usage of erased accounts as anonymous totals per UTC day and catalog model, so the deployment's
 * usage and cost history do not change when an account is erased.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('erasing_at', 'bigint').execute();
    await db.schema
      .createTable('usage_erased')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('completed', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cost_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('absorbed_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_erased_pk', ['day', 'model'])
      .execute();
  },
};
