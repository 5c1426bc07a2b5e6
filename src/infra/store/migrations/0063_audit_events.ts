import type { Kysely, Migration } from 'kysely';

/**
 * The audit log (issue 43): one row per change an operator made (admin API, console) or the CLI
 * made, append-only (the code has no path that updates or deletes a row). Listed newest first by
 * (at, id), filtered by actor, action or target.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('actor_account_id', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text', (c) => c.notNull())
      .addColumn('before_json', 'text')
      .addColumn('after_json', 'text')
      .addColumn('request_id', 'text')
      .execute();
    await db.schema.createIndex('audit_events_at').on('audit_events').columns(['at', 'id']).execute();
    await db.schema
      .createIndex('audit_events_target')
      .on('audit_events')
      .columns(['target_type', 'target_id', 'at'])
      .execute();
    await db.schema.createIndex('audit_events_actor').on('audit_events').columns(['actor', 'at']).execute();
  },
};
