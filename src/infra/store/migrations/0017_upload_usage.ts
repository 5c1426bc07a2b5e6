import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Uploads and their bytes per account and UTC day, counted by the uploads capability when an
    // upload is stored: the daily upload quota every node shares.
    await db.schema
      .createTable('upload_usage')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('uploads', 'bigint', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('upload_usage_pk', ['account_id', 'day'])
      .execute();
    // Uploads stored before this migration count on their day (repeats were not recorded then).
    const day =
      dialectOf(db) === 'sqlite'
        ? sql`strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')`
        : sql`to_char(to_timestamp(created_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
    await sql`insert into upload_usage (account_id, day, uploads, bytes)
      select account_id, ${day}, count(*), sum(bytes)
      from assets where kind = 'upload'
      group by account_id, ${day}`.execute(db);
  },
};
