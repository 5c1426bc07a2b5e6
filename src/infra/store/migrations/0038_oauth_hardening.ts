import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Refresh-token reuse (issue 38): every refresh token rotated out is remembered (its SHA-256)
    // until its grant is dropped, so that presenting it again ends the whole grant; why a grant was
    // ended by the server (a token presented twice) is kept to be shown on the account page.
    await db.schema.alterTable('oauth_grants').addColumn('ended_reason', 'text').execute();
    await db.schema
      .createTable('oauth_retired_refresh_tokens')
      .addColumn('refresh_hash', 'text', (c) => c.primaryKey())
      .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
      .addColumn('retired_at', 'bigint', (c) => c.notNull())
      .execute();
    // A registered client's first completed sign-in (code exchanged); clients that never complete
    // one are removed after a while (docs/mcp.md).
    await db.schema.alterTable('oauth_clients').addColumn('signed_in_at', 'bigint').execute();
    // Clients that signed in before this migration: their first grant says when.
    await sql`update oauth_clients set signed_in_at = (select min(g.created_at) from oauth_grants g where g.client_id = oauth_clients.client_id) where exists (select 1 from oauth_grants g where g.client_id = oauth_clients.client_id)`.execute(
      db,
    );
    // The OAuth endpoints' rate limits, one fixed window per (endpoint, client address), shared by
    // every node.
    await db.schema
      .createTable('oauth_rate_windows')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('hits', 'integer', (c) => c.notNull())
      .execute();
  },
};
