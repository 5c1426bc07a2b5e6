import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // What upstreams billed beyond quotes' maxima (issue 41), per account, UTC day and model beside
    // the spend: absorbed by the operator, never part of cost_micros.
    await db.schema
      .alterTable('usage_daily')
      .addColumn('absorbed_micros', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
    // Tasks that absorbed before this migration (tasks.cost_absorbed_micros, 0059) are counted once,
    // here, under the day and model their completion was counted under.
    const day =
      dialectOf(db) === 'sqlite'
        ? sql`strftime('%Y-%m-%d', t.finished_at / 1000, 'unixepoch')`
        : sql`to_char(to_timestamp(t.finished_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
    await sql`update usage_daily set absorbed_micros = coalesce((
        select sum(t.cost_absorbed_micros) from tasks t join generations g on g.id = t.generation_id
        where t.account_id = usage_daily.account_id and g.model = usage_daily.model
          and t.status = 'completed' and t.finished_at is not null
          and t.cost_absorbed_micros is not null and ${day} = usage_daily.day), 0)`.execute(db);
  },
};
