import type { Kysely, Migration } from 'kysely';

/**
 * Spend confirmed by the person (issue 46): an account's setting (one threshold, one switch for API
 * keys and one for sign-in grants; no row: the defaults of docs/mcp.md), and the answers MCP clients
 * POST to server-initiated requests (an elicitation) on a node other than the one waiting for them.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('spend_confirmations')
      .addColumn('account_id', 'text', (col) =>
        col.primaryKey().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('above_micros', 'bigint', (col) => col.notNull())
      .addColumn('api_keys', 'integer', (col) => col.notNull())
      .addColumn('sign_in', 'integer', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema
      .createTable('mcp_answers')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('message_json', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .execute();
  },
};
