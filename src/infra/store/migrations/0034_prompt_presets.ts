import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The website's named presets, per account (issue 30): the Create form's model, aspect, size,
    // count and an optional style suffix, kept on the server so every device of the account has them.
    await db.schema
      .createTable('prompt_presets')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('settings_json', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('prompt_presets_pk', ['account_id', 'name'])
      .execute();
  },
};
