import type { Kysely, Migration } from 'kysely';

/**
 * Retention per API key and zero-retention requests (issue 47). An API key may set its own results
 * retention (days; null: the account's, tier's or deployment's, the shortest winning) and may store
 * nothing (`zero_retention` 1: every work made with it is zero-retention). A work made zero-retention
 * (the key's setting, or the request's `Atelier-Retention: none`) is marked on its row; each of its
 * tasks' images is marked `delivered_at` once the caller fetched it (or it was answered inline),
 * and the work is purged as soon as every image was delivered, or an hour after its tasks ended.
 * A work knows its key by its tasks' `api_key_id` (migration 0031): no column is added for that.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').addColumn('retention_results_days', 'integer').execute();
    await db.schema
      .alterTable('api_keys')
      .addColumn('zero_retention', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('generations')
      .addColumn('zero_retention', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('tasks').addColumn('delivered_at', 'bigint').execute();
    // On the task too: its record (a poll reads the task's row only) says `retention: "none"`.
    await db.schema
      .alterTable('tasks')
      .addColumn('zero_retention', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
