import type { Clock } from '../../base/runtime/clock.js';
import { LEGACY_SEAL_PREFIX } from '../../base/secrets/secret-box.js';
import type { Db } from '../../infra/store/database.js';
import type { WebhookSecretsTable } from '../../infra/store/schema/webhooks.js';

/** PostgreSQL's driver reads a bigint as a string. */
const timeOrNull = (value: number | string | null) => (value === null ? null : Number(value));

/** Store queries for the accounts' sealed signing secrets (`webhook_secrets`). */
export function createSecretsStore({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** The account's sealed signing secret, and the one its last rotation replaced (if any). */
    async findSecret(
      accountId: string,
    ): Promise<
      Pick<WebhookSecretsTable, 'ciphertext' | 'previous_ciphertext' | 'previous_expires_at'> | undefined
    > {
      const row = await db
        .selectFrom('webhook_secrets')
        .select(['ciphertext', 'previous_ciphertext', 'previous_expires_at'])
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row && { ...row, previous_expires_at: timeOrNull(row.previous_expires_at) };
    },

    /** Stores a sealed secret unless the account has one already (two first reads at once keep one). */
    async insertSecretIfAbsent(accountId: string, ciphertext: string): Promise<void> {
      await db
        .insertInto('webhook_secrets')
        .values({
          account_id: accountId,
          ciphertext,
          created_at: clock.now(),
          previous_ciphertext: null,
          previous_expires_at: null,
        })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
    },

    /**
     * Replaces the secret `from` by `to`, keeping `from` as the previous one until `previousUntil`
     * (null: not kept). Only if the row still holds `from`: of two rotations at once, one wins.
     */
    async rotateSecret(accountId: string, from: string, to: string, previousUntil: number | null) {
      const result = await db
        .updateTable('webhook_secrets')
        .set({
          ciphertext: to,
          created_at: clock.now(),
          previous_ciphertext: previousUntil === null ? null : from,
          previous_expires_at: previousUntil,
        })
        .where('account_id', '=', accountId)
        .where('ciphertext', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Secrets sealed before seals were bound to their row (the start binds them). */
    async legacySealedSecrets(): Promise<Array<{ account_id: string; sealed: string }>> {
      return db
        .selectFrom('webhook_secrets')
        .select(['account_id', 'ciphertext as sealed'])
        .where('ciphertext', 'like', `${LEGACY_SEAL_PREFIX}%`)
        .execute();
    },

    /** Replaces a sealed secret by the same secret sealed again, if the row still holds `from`. */
    async resealSecret(accountId: string, from: string, to: string): Promise<void> {
      await db
        .updateTable('webhook_secrets')
        .set({ ciphertext: to })
        .where('account_id', '=', accountId)
        .where('ciphertext', '=', from)
        .execute();
    },
  };
}
