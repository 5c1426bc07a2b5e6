import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Images completed and failed per account, UTC day (of the final state) and model, kept by the
    // usage capability in the transaction of each task's final write.
    await db.schema
      .createTable('usage_daily')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('completed', 'bigint', (c) => c.notNull())
      .addColumn('failed', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'model'])
      .execute();
    // Tasks that ended before this migration are counted once, here.
    const day =
      dialectOf(db) === 'sqlite'
        ? sql`strftime('%Y-%m-%d', t.finished_at / 1000, 'unixepoch')`
        : sql`to_char(to_timestamp(t.finished_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
    await sql`insert into usage_daily (account_id, day, model, completed, failed)
      select t.account_id, ${day}, g.model,
        sum(case when t.status = 'completed' then 1 else 0 end),
        sum(case when t.status = 'failed' then 1 else 0 end)
      from tasks t join generations g on g.id = t.generation_id
      where t.status in ('completed', 'failed') and t.finished_at is not null
      group by t.account_id, ${day}, g.model`.execute(db);
  },
};
