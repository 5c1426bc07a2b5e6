import {
  bindLegacySeals,
  LEGACY_SEAL_PREFIX,
  type SecretBox,
  sealContext,
} from '../../base/secrets/secret-box.js';
import type { Db } from '../../infra/store/database.js';

/**
 * What a sealed upstream key is bound to: its account and provider (the seal's associated data).
 * Security: a database writer who copies a sealed key into another account's or provider's row
 * gets a seal that does not open there.
 */
export const upstreamKeyContext = (accountId: string, provider: string) =>
  sealContext('upstream_keys', accountId, provider);

/**
 * The upstream key sealed in the row of (account, provider), or undefined when the seal does not
 * open there (it was sealed for another row, or tampered with): such a row counts as no key.
 */
export function openUpstreamKey(
  secrets: SecretBox,
  sealed: string,
  accountId: string,
  provider: string,
): string | undefined {
  try {
    return secrets.open(sealed, upstreamKeyContext(accountId, provider));
  } catch {
    return undefined;
  }
}

/**
 * Binds the upstream keys sealed before seals were bound to their row (format v1) to that row,
 * at start. Each is replaced only if the row still holds the same seal, so nodes starting
 * together, or a key changed meanwhile, never lose a write. Returns how many were bound.
 */
export async function bindLegacyUpstreamKeys(db: Db, secrets: SecretBox): Promise<number> {
  const rows = await db
    .selectFrom('upstream_keys')
    .select(['account_id', 'provider', 'ciphertext as sealed'])
    .where('ciphertext', 'like', `${LEGACY_SEAL_PREFIX}%`)
    .execute();
  return bindLegacySeals(
    secrets,
    rows,
    (row) => upstreamKeyContext(row.account_id, row.provider),
    async (row, bound) => {
      await db
        .updateTable('upstream_keys')
        .set({ ciphertext: bound })
        .where('account_id', '=', row.account_id)
        .where('provider', '=', row.provider)
        .where('ciphertext', '=', row.sealed)
        .execute();
    },
  );
}
