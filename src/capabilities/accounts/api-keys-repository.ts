import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { Db } from '../../infra/store/database.js';
import type { ApiKeyScope, ApiKeysTable } from '../../infra/store/schema/accounts.js';
import { type AccountChanges, changeAnnounced } from './account-changes.js';

/** The name of the key an account is created with, and the one `rotate-key` replaces. */
export const DEFAULT_KEY_NAME = 'default';

/** An API key as listed (never the key itself: only its hint). */
export interface ApiKey {
  /** `key_…`, stable. */
  id: string;
  accountId: string;
  name: string;
  scope: ApiKeyScope;
  hint: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Days the key's results are kept (migration 0076); null: the account's, tier's or deployment's. */
  resultsRetentionDays: number | null;
  /** Whether the key stores nothing: its works are zero-retention. */
  zeroRetention: boolean;
}

/** A key's retention settings as changed: absent fields stay. */
export interface KeyRetentionChange {
  resultsRetentionDays?: number | null;
  zeroRetention?: boolean;
}

/** A key as a new row: what the caller decided, the hash of the key shown once. */
export interface NewApiKey {
  accountId: string;
  name: string;
  scope: ApiKeyScope;
  keyHash: string;
  hint: string;
  expiresAt: number | null;
  resultsRetentionDays?: number | null;
  zeroRetention?: boolean;
}

const nullableNumber = (value: number | null) => (value === null ? null : Number(value));

function toApiKey(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    scope: row.scope,
    hint: row.hint,
    createdAt: Number(row.created_at),
    expiresAt: nullableNumber(row.expires_at),
    lastUsedAt: nullableNumber(row.last_used_at),
    revokedAt: nullableNumber(row.revoked_at),
    resultsRetentionDays: nullableNumber(row.retention_results_days ?? null),
    zeroRetention: Number(row.zero_retention ?? 0) === 1,
  };
}

/** Inserts a key row in `executor` (a transaction that also creates the account, or the store). */
export async function insertApiKey(executor: Db, id: string, key: NewApiKey, now: number): Promise<ApiKey> {
  const row: ApiKeysTable = {
    id,
    account_id: key.accountId,
    name: key.name,
    scope: key.scope,
    key_hash: key.keyHash,
    hint: key.hint,
    created_at: now,
    expires_at: key.expiresAt,
    last_used_at: null,
    revoked_at: null,
    retention_results_days: key.resultsRetentionDays ?? null,
    zero_retention: key.zeroRetention ? 1 : 0,
  };
  await executor.insertInto('api_keys').values(row).execute();
  return toApiKey(row);
}

/** What the accounts' repositories are built from. */
export interface RepositoryDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Told of every change of a key or a tier (what the API-key cache of every process keeps). */
  changes?: AccountChanges | undefined;
}

/** A key's fields on every wire that lists keys (never the key itself: its hint). */
export function apiKeyFields(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    hint: key.hint,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    retention_results_days: key.resultsRetentionDays,
    zero_retention: key.zeroRetention,
  };
}

/** How often a key's last use is written at most (per key and node). */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Store queries for API keys. Revocations are announced to every process's API-key cache. */
export function createApiKeysRepository({ db, clock, ids, changes }: RepositoryDeps) {
  return {
    /** A new key (not announced: a key no process has seen is in no cache). */
    insert: (key: NewApiKey): Promise<ApiKey> => insertApiKey(db, ids.next('key'), key, clock.now()),

    /** The account's keys, oldest first; revoked ones only when asked. */
    async list(accountId: string, { includeRevoked = false } = {}): Promise<ApiKey[]> {
      let query = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
      if (!includeRevoked) query = query.where('revoked_at', 'is', null);
      const rows = await query.orderBy('created_at').orderBy('id').execute();
      return rows.map(toApiKey);
    },

    /** The account's keys that are not revoked, how many. */
    async countActive(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Revokes these keys of the account (those still working); the revoked ones, announced. */
    async revoke(accountId: string, keyIds: string[]): Promise<number> {
      if (keyIds.length === 0) return 0;
      return changeAnnounced(db, changes, async (executor) => {
        const result = await executor
          .updateTable('api_keys')
          .set({ revoked_at: clock.now() })
          .where('account_id', '=', accountId)
          .where('id', 'in', keyIds)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
    },

    /**
     * Sets a working key's retention (absent fields stay), announced: every node's API-key cache
     * reads the key's zero-retention again. The key as set, or undefined when no such working key.
     */
    setRetention: (accountId: string, keyId: string, change: KeyRetentionChange) =>
      setKeyRetention({ db, changes }, accountId, keyId, change),

    /**
     * Replaces the account's default key: every working full key named `default` is revoked and a
     * new one made, in one announced transaction (the old ones stop working on every node at once).
     */
    async replaceDefault(key: NewApiKey): Promise<ApiKey> {
      return changeAnnounced(db, changes, async (executor) => {
        const now = clock.now();
        await executor
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where('account_id', '=', key.accountId)
          .where('name', '=', DEFAULT_KEY_NAME)
          .where('scope', '=', 'full')
          .where('revoked_at', 'is', null)
          .execute();
        return insertApiKey(executor, ids.next('key'), key, now);
      });
    },

    /**
     * Records a use of the key, unless one in the last minute is recorded already (another node may
     * have written it): one indexed update, not announced (no cache depends on it).
     */
    async touch(keyId: string, now: number): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: now })
        .where('id', '=', keyId)
        .where((eb) =>
          eb.or([
            eb('last_used_at', 'is', null),
            eb('last_used_at', '<=', now - LAST_USED_WRITE_INTERVAL_MS),
          ]),
        )
        .execute();
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;

/** A working key's retention set (absent fields stay), in one announced transaction; the key as set. */
async function setKeyRetention(
  { db, changes }: Pick<RepositoryDeps, 'db' | 'changes'>,
  accountId: string,
  keyId: string,
  change: KeyRetentionChange,
): Promise<ApiKey | undefined> {
  return changeAnnounced(db, changes, async (executor) => {
    const values = {
      ...(change.resultsRetentionDays === undefined
        ? {}
        : { retention_results_days: change.resultsRetentionDays }),
      ...(change.zeroRetention === undefined ? {} : { zero_retention: change.zeroRetention ? 1 : 0 }),
    };
    if (Object.keys(values).length > 0) {
      await executor
        .updateTable('api_keys')
        .set(values)
        .where('account_id', '=', accountId)
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .execute();
    }
    const row = await executor
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && toApiKey(row);
  });
}
