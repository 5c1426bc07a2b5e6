import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Per-key budgets (issue 31). Which API key created a task (null: the website's session, or a
    // task from before this migration), so a key's spend is counted from its own tasks.
    await db.schema.alterTable('tasks').addColumn('api_key_id', 'text').execute();
    await db.schema
      .createIndex('tasks_key_created')
      .on('tasks')
      .columns(['api_key_id', 'created_at'])
      .execute();
    // A key's budgets per UTC day and month in micro-dollars (owned by src/capabilities/usage); null = none.
    await db.schema
      .createTable('key_budgets')
      .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('daily_micros', 'bigint')
      .addColumn('monthly_micros', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
