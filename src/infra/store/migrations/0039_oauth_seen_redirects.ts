import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // No redirect before consent (issue 38): /authorize sends an error to a client's redirect URI
    // only once a person has seen that URI on the consent screen (and answered); until then an
    // error is a page on Atelier's own origin. What was seen, per client and redirect URI.
    await db.schema
      .createTable('oauth_seen_redirects')
      .addColumn('client_id', 'text', (c) =>
        c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
      )
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('seen_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_seen_redirects_pk', ['client_id', 'redirect_uri'])
      .execute();
  },
};
