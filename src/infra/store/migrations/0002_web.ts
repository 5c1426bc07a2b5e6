import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Website sessions live in the database so that several nodes share them; the cookie carries
    // a random token and only its SHA-256 is stored.
    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account').on('sessions').columns(['account_id']).execute();
    await db.schema.createIndex('sessions_expires').on('sessions').columns(['expires_at']).execute();

    // Deleting a saved work hides it from the gallery; history keeps the row, marked removed.
    await db.schema.alterTable('generations').addColumn('deleted_at', 'bigint').execute();
  },
};
