import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Alerts (issue 43): the operator's alert rules (one webhook each, for one kind of event), the
 * episodes that make an event alert once across every node, and the alert outbox (deliveries with
 * retries, the task webhooks' delivery columns).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
      .addColumn('params_json', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_rules_kind').on('alert_rules').columns(['kind']).execute();

    // One row per (rule, subject): the claim that makes an event alert once whichever node saw it.
    await db.schema
      .createTable('alert_episodes')
      .addColumn('rule_id', 'text', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('firing', 'integer', (c) => c.notNull())
      .addColumn('fired_at', 'bigint', (c) => c.notNull())
      .addColumn('recovered_at', 'bigint')
      .addPrimaryKeyConstraint('alert_episodes_pk', ['rule_id', 'subject'])
      .execute();

    await db.schema
      .createTable('alert_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('rule_id', 'text', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
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
    await db.schema
      .createIndex('alert_deliveries_created')
      .on('alert_deliveries')
      .columns(['created_at', 'id'])
      .execute();
    // The delivery worker's due-queue: only pending deliveries are indexed.
    await db.schema
      .createIndex('alert_deliveries_due')
      .on('alert_deliveries')
      .columns(['next_attempt_at'])
      .where(sql.ref('state'), '=', sql`'pending'`)
      .execute();
  },
};
