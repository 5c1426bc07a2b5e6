import { randomBytes } from 'node:crypto';
import { type Kysely, type Migration, sql } from 'kysely';

/** What `accounts.api_key_hash` holds once the key lives in `api_keys`: unique, and never a SHA-256 of a key. */
export const MOVED_API_KEY_PREFIX = 'moved:';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An account has any number of API keys (issue 31): named, scoped (full, or read for
    // dashboards), optionally expiring, revocable; last use written at most once a minute per key.
    // `id` (key_…) is stable: per-key budgets and spend refer to it. Only the key's SHA-256 is kept,
    // as before, and its hint (the first characters; a key moved here keeps its old hint).
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('hint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('api_keys_account')
      .on('api_keys')
      .columns(['account_id', 'created_at'])
      .execute();
    // An operator may use the operator console (set by the CLI).
    await db.schema
      .alterTable('accounts')
      .addColumn('operator', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    // Each account's one key moves over as a full key named "default", so it keeps working. The
    // account's own column keeps a value that can match no key (it is unique and not null).
    const accounts = await sql<{
      id: string;
      api_key_hash: string;
      api_key_hint: string;
      created_at: number;
    }>`
      select id, api_key_hash, api_key_hint, created_at from accounts`.execute(db);
    for (const account of accounts.rows) {
      if (account.api_key_hash.startsWith(MOVED_API_KEY_PREFIX)) continue;
      const id = `key_${randomBytes(16).toString('base64url')}`;
      await sql`insert into api_keys (id, account_id, name, scope, key_hash, hint, created_at)
        values (${id}, ${account.id}, 'default', 'full', ${account.api_key_hash}, ${account.api_key_hint},
          ${Number(account.created_at)})`.execute(db);
    }
    await sql`update accounts set api_key_hash = ${MOVED_API_KEY_PREFIX} || id`.execute(db);
  },
};
