import { type Kysely, type Migration, sql } from 'kysely';
import { savedCondition } from '../saved-condition.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // History's total and total_pages come from a counter kept with the generations, instead of a
    // COUNT(*) over every one of the account's generations on each page.
    await db.schema
      .createTable('generation_counts')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('history_total', 'bigint', (c) => c.notNull())
      .addColumn('saved_total', 'bigint', (c) => c.notNull())
      .execute();
    await sql`insert into generation_counts (account_id, history_total, saved_total)
      select account_id, count(*), sum(case when deleted_at is null then 1 else 0 end)
      from generations where rejected = 0 group by account_id`.execute(db);
    // The gallery's pages (saved works: not rejected, not deleted) walk this index alone.
    await db.schema
      .createIndex('generations_saved')
      .on('generations')
      .columns(['account_id', 'created_at', 'id'])
      .where(savedCondition)
      .execute();
  },
};
