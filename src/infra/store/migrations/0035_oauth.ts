import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Sign-in for hosted MCP clients (issue 32): OAuth clients registered dynamically (RFC 7591),
    // the authorizations a person is asked to consent to (and the one-time code once they allow),
    // and the grants that hold an account's access and refresh tokens (their SHA-256 only).
    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      // The client's registered information (RFC 7591), as the registration answered it.
      .addColumn('client_json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('oauth_authorizations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
      )
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('state', 'text')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      // Set when the person allows: whose account, and the code's hash (one use).
      .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
      .addColumn('code_hash', 'text', (c) => c.unique())
      .addColumn('used_at', 'bigint')
      .addColumn('grant_id', 'text')
      .execute();
    await db.schema
      .createTable('oauth_grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
      )
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('access_hash', 'text', (c) => c.notNull().unique())
      .addColumn('access_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('refresh_hash', 'text', (c) => c.notNull().unique())
      .addColumn('refresh_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('oauth_grants_account')
      .on('oauth_grants')
      .columns(['account_id', 'created_at'])
      .execute();
  },
};
