import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The sign-in throttle counts an attempt before its password is checked, in one upsert that
    // either counts it or leaves the row as it was (the key is waiting). The attempt's own id,
    // written only when it is counted, is how the caller learns which of the two happened.
    await db.schema
      .alterTable('sign_in_failures')
      .addColumn('last_attempt_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
