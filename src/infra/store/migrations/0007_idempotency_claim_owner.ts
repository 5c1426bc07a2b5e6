import type { Kysely, Migration } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An in-progress Idempotency-Key names the process working on it and when its claim runs out
    // (renewed while the request runs), so a crashed holder's key is freed instead of held 10 min.
    await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
    await db.schema.alterTable('idempotency_keys').addColumn('expires_at', 'bigint').execute();
  },
};
