import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Prices and budgets (issue 31). Money is integer micro-dollars (src/capabilities/catalog/prices.ts).
    // What a task cost once it completed (null while unfinished, when failed, or when its route has
    // no price) and where the figure came from (`upstream_usage` or `catalog_price`).
    await db.schema.alterTable('tasks').addColumn('cost_micros', 'bigint').execute();
    await db.schema.alterTable('tasks').addColumn('cost_source', 'text').execute();
    // The most the task can cost, reserved against budgets at admission: an unfinished task counts
    // this much, a completed one its cost, a failed one nothing.
    await db.schema
      .alterTable('tasks')
      .addColumn('cost_reserved_micros', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
    // Spend per account, UTC day of the end and model, beside the counts.
    await db.schema
      .alterTable('usage_daily')
      .addColumn('cost_micros', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
    // An account's budgets (owned by src/capabilities/usage): null = no budget for that period.
    await db.schema
      .createTable('account_budgets')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('daily_micros', 'bigint')
      .addColumn('monthly_micros', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
