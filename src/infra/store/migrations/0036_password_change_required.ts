import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // 1 while the account's password is one an operator set (a reset): its website sessions can do
    // nothing but set the person's own password, which clears it. API keys are not affected.
    await db.schema
      .alterTable('accounts')
      .addColumn('password_change_required', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
