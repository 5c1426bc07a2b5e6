import type { Kysely, Migration } from 'kysely';

/**
 * Webhook signing secret rotation (issue 25): the secret a rotation replaced stays beside the new
 * one until `previous_expires_at`, and deliveries are signed with both until then.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhook_secrets').addColumn('previous_ciphertext', 'text').execute();
    await db.schema.alterTable('webhook_secrets').addColumn('previous_expires_at', 'bigint').execute();
  },
};
