import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Quotes that bind (issue 41): a task made under a quote is never charged more than the quote's
    // most per image (`cost_cap_micros`); what the upstream billed beyond it is Atelier's, recorded in
    // `cost_absorbed_micros` for operators. Both null for tasks made without a quote.
    await db.schema.alterTable('tasks').addColumn('cost_cap_micros', 'bigint').execute();
    await db.schema.alterTable('tasks').addColumn('cost_absorbed_micros', 'bigint').execute();
  },
};
