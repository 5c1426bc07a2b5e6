import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Idempotency records per account and hour of their creation, moved in the transaction that
    // creates or deletes a record: the per-account cap sums the last day's hours, never counts rows.
    await db.schema
      .createTable('idempotency_usage')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('records', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_usage_pk', ['account_id', 'hour'])
      .execute();
    // Records kept before this migration are counted once, here (integer division on both stores).
    await sql`insert into idempotency_usage (account_id, hour, records)
      select account_id, (created_at / 3600000) * 3600000, count(*)
      from idempotency_keys
      group by account_id, (created_at / 3600000) * 3600000`.execute(db);
  },
};
