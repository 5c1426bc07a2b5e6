import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_secrets')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('ciphertext', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    // The callbackUrl of a generate request, beside the generation rather than in it.
    await db.schema
      .createTable('webhook_callbacks')
      .addColumn('generation_id', 'text', (c) =>
        c.primaryKey().references('generations.id').onDelete('cascade'),
      )
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_callbacks_created')
      .on('webhook_callbacks')
      .columns(['created_at'])
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('task_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .execute();
    // One delivery per task and event: enqueueing twice (two notifications, the sweep) is a no-op.
    await db.schema
      .createIndex('webhook_deliveries_task_type')
      .on('webhook_deliveries')
      .columns(['task_id', 'type'])
      .unique()
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_account_created')
      .on('webhook_deliveries')
      .columns(['account_id', 'created_at', 'id'])
      .execute();
    // The delivery worker's due-queue: only pending deliveries are indexed.
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['next_attempt_at'])
      .where(sql.ref('state'), '=', sql`'pending'`)
      .execute();
  },
};
