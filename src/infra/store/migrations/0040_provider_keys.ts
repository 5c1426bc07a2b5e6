import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Pools of upstream keys (issue 39): the deployment's keys per provider, sealed under the master
 * key (the environment's key is a row too, named `env`, whose secret stays in the environment), each
 * with its weight, the project whose quota it shares (keys of one project are one capacity pool),
 * an optional limit on calls at once, the operator's switch, and why it was taken out of service;
 * and on tasks, the pooled key their submit used (its polls use it too; its spend counts there).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('provider_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // Null for the environment's key (read from the environment by each node, never stored).
      .addColumn('ciphertext', 'text')
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('project', 'text')
      .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('max_in_flight', 'integer')
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('out_reason', 'text')
      .addColumn('out_since', 'bigint')
      .addColumn('recheck_at', 'bigint')
      .addColumn('rechecks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('last_error_at', 'bigint')
      .addColumn('refusals', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('provider_keys_name')
      .on('provider_keys')
      .columns(['provider', 'name'])
      .unique()
      .execute();
    await db.schema.alterTable('tasks').addColumn('upstream_key_id', 'text').execute();
    await db.schema
      .createIndex('tasks_upstream_key_created')
      .on('tasks')
      .columns(['upstream_key_id', 'created_at'])
      .where(sql.ref('upstream_key_id'), 'is not', null)
      .execute();
  },
};
