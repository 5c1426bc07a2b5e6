import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Upstream capacity (issue 27): one row per pool — a provider, an upstream model and a hash of the
 * key that calls it — with what the engine learned of its limit and the hold a `Retry-After` put on
 * it; one row per upstream call (its slot while it runs, and the per-minute window's count after);
 * and on tasks, the pool a task waits for while it is parked.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('upstream_pools')
      .addColumn('pool', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('upstream_model', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('learned_limit', 'integer')
      .addColumn('successes', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('burst_floor', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('hold_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('retry_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('upstream_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('pool', 'text', (c) => c.notNull())
      .addColumn('task_id', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('upstream_calls_pool_started')
      .on('upstream_calls')
      .columns(['pool', 'started_at'])
      .execute();
    await db.schema.alterTable('tasks').addColumn('waiting_for', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('capacity_pool', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('waiting_since', 'bigint').execute();
    await db.schema
      .createIndex('tasks_capacity_waiting')
      .on('tasks')
      .columns(['capacity_pool', 'account_id', 'created_at'])
      .where(sql.ref('capacity_pool'), 'is not', null)
      .execute();
  },
};
