import type { Kysely, Migration } from 'kysely';

/**
 * Upstream capacity, second pass (issue 39): what a pool needs to recover its learned limit and to
 * pace calls by the upstream's own rate-limit headers — when it was last refused for calls at once
 * (an old limit is forgotten after a quiet while), the ramp a fresh or forgetting pool climbs, and
 * the request budget the last answer reported (limit, remaining, reset) with when it was read.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('upstream_pools')
      .addColumn('refused_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('upstream_pools')
      .addColumn('ramp_since', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('upstream_pools')
      .addColumn('ramp_base', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('upstream_pools').addColumn('quota_limit', 'integer').execute();
    await db.schema.alterTable('upstream_pools').addColumn('quota_remaining', 'integer').execute();
    await db.schema
      .alterTable('upstream_pools')
      .addColumn('quota_reset_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('upstream_pools')
      .addColumn('quota_seen_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
