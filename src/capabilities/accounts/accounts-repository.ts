import { sql } from 'kysely';
import type { Tier } from '../../base/domain/tiers.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { AccountsTable, ApiKeyScope } from '../../infra/store/schema.js';
import { changeAnnounced } from './account-changes.js';
import {
  createApiKeysRepository,
  DEFAULT_KEY_NAME,
  insertApiKey,
  type RepositoryDeps,
} from './api-keys-repository.js';

/** The API key a request was authenticated with (absent on a website session). */
export interface ApiKeyUse {
  /** `key_…` */
  id: string;
  name: string;
  scope: ApiKeyScope;
  /** When the key stops working (checked on every request); null for never. */
  expiresAt: number | null;
}

export interface Account {
  id: string;
  email: string;
  tier: Tier;
  createdAt: number;
  /** Present (true) only on a disabled account: its key and sessions are refused. */
  disabled?: true;
  /** Present (true) only on an operator's account (the operator console). */
  operator?: true;
  /**
   * Present (true) only while the password is one an operator set (a reset), until the person sets
   * their own: the website's sessions refuse everything else meanwhile. Read with the account's
   * credentials (sign-in, sessions); an account found by an API key may not carry it.
   */
  passwordChangeRequired?: true;
  /** The key the request came with, on an account found by its API key. */
  apiKey?: ApiKeyUse;
}

type AccountRow = Pick<AccountsTable, 'id' | 'email' | 'tier' | 'created_at'> &
  Partial<Pick<AccountsTable, 'disabled_at'> & { operator: number; password_change_required: number }>;

function toAccount(row: AccountRow): Account {
  const account: Account = {
    id: row.id,
    email: row.email,
    tier: row.tier,
    createdAt: Number(row.created_at),
  };
  if (row.disabled_at !== null && row.disabled_at !== undefined) account.disabled = true;
  if (Number(row.operator ?? 0) === 1) account.operator = true;
  if (Number(row.password_change_required ?? 0) === 1) account.passwordChangeRequired = true;
  return account;
}

/** The columns an account is read with. */
const ACCOUNT_COLUMNS = ['id', 'email', 'tier', 'created_at', 'disabled_at', 'operator'] as const;

/**
 * What `accounts.api_key_hash` holds since migration 0028 moved keys to `api_keys`: unique per
 * account, and never the SHA-256 of a key.
 */
const movedKeyHash = (accountId: string) => `moved:${accountId}`;

/** Store queries for accounts and their sealed upstream keys. */
export function createAccountsRepository({ db, clock, ids, changes }: RepositoryDeps) {
  /** Runs an update of what authentication returns, announced in its own transaction. */
  const changeAuthenticated = async (update: (executor: Db) => Promise<unknown>) => {
    await changeAnnounced(db, changes, update);
  };
  // A key that is not revoked, with its account (expiry is the caller's to check: it passes in time).
  const byApiKeyHash = compiledOnce(1, (hash: string) =>
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'accounts.id',
        'accounts.email',
        'accounts.tier',
        'accounts.created_at',
        'accounts.disabled_at',
        'accounts.operator',
        'api_keys.id as key_id',
        'api_keys.name as key_name',
        'api_keys.scope as key_scope',
        'api_keys.expires_at as key_expires_at',
      ])
      .where('api_keys.key_hash', '=', hash)
      .where('api_keys.revoked_at', 'is', null),
  );
  /** Account id → the hint of its newest working full key named `default` (of these accounts, or all). */
  async function defaultKeyHints(accountIds?: string[]): Promise<Map<string, string>> {
    let query = db
      .selectFrom('api_keys')
      .select(['account_id', 'hint'])
      .where('name', '=', DEFAULT_KEY_NAME)
      .where('scope', '=', 'full')
      .where('revoked_at', 'is', null);
    if (accountIds) query = query.where('account_id', 'in', accountIds);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return new Map(rows.map((row) => [row.account_id, row.hint]));
  }
  return {
    /** The accounts' API keys (created, listed, revoked; last use). */
    keys: createApiKeysRepository({ db, clock, ids, changes }),

    /**
     * Inserts an account with its first API key, a full key named `default`; undefined when the
     * email is taken. The unique index decides, so two nodes creating the same account at once (the
     * first-start demo account) never both succeed or crash.
     */
    async insert(input: {
      email: string;
      tier: Tier;
      passwordHash: string | null;
      apiKeyHash: string;
      apiKeyHint: string;
    }): Promise<Account | undefined> {
      const now = clock.now();
      const id = ids.next('acc');
      const row = {
        id,
        email: input.email,
        tier: input.tier,
        password_hash: input.passwordHash,
        api_key_hash: movedKeyHash(id),
        api_key_hint: '',
        created_at: now,
        updated_at: now,
      };
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .insertInto('accounts')
          .values(row)
          .onConflict((oc) => oc.column('email').doNothing())
          .executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return undefined;
        const key = {
          accountId: id,
          name: DEFAULT_KEY_NAME,
          scope: 'full' as const,
          keyHash: input.apiKeyHash,
          hint: input.apiKeyHint,
          expiresAt: null,
        };
        await insertApiKey(trx, ids.next('key'), key, now);
        return toAccount(row);
      });
    },

    /** Every API request's first query: compiled once. The account with the key it was found by. */
    async findByApiKeyHash(hash: string): Promise<Account | undefined> {
      const [row] = (await db.executeQuery(byApiKeyHash(hash))).rows;
      if (!row) return undefined;
      const expires = row.key_expires_at;
      return {
        ...toAccount(row),
        apiKey: {
          id: row.key_id,
          name: row.key_name,
          scope: row.key_scope,
          expiresAt: expires === null ? null : Number(expires),
        },
      };
    },

    async findByEmail(email: string) {
      const row = await db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
      return row && { account: toAccount(row), passwordHash: row.password_hash };
    },

    async findById(id: string): Promise<Account | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(ACCOUNT_COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toAccount(row);
    },

    /** The account with its session generation and password hash: what a website session is checked against. */
    async findWithCredentials(
      id: string,
    ): Promise<{ account: Account; sessionGeneration: number; passwordHash: string | null } | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select([...ACCOUNT_COLUMNS, 'session_generation', 'password_hash', 'password_change_required'])
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row && {
          account: toAccount(row),
          sessionGeneration: Number(row.session_generation),
          passwordHash: row.password_hash,
        }
      );
    },

    /**
     * The hint of the account's default key (its newest working full key named `default`), for
     * telling keys apart (the key itself is never kept); undefined when it has none.
     */
    async apiKeyHint(id: string): Promise<string | undefined> {
      return (await defaultKeyHints([id])).get(id);
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Every account with its default key's hint ('' when it has none working). */
    async list(): Promise<Array<Account & { apiKeyHint: string }>> {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
      const hints = await defaultKeyHints();
      return rows.map((row) => ({ ...toAccount(row), apiKeyHint: hints.get(row.id) ?? '' }));
    },

    /** Makes the account an operator (or not); announced, as what authentication returns changes. */
    async setOperator(id: string, operator: boolean): Promise<void> {
      await changeAuthenticated((executor) =>
        executor
          .updateTable('accounts')
          .set({ operator: operator ? 1 : 0, updated_at: clock.now() })
          .where('id', '=', id)
          .execute(),
      );
    },

    async updateTier(id: string, tier: Tier): Promise<void> {
      await changeAuthenticated((executor) =>
        executor
          .updateTable('accounts')
          .set({ tier, updated_at: clock.now() })
          .where('id', '=', id)
          .execute(),
      );
    },

    /**
     * A new password: the hash changes and the session generation moves (every session ends), in
     * one statement; `changeRequired` for one an operator set (the person must set their own next),
     * cleared when they do. (`updatePasswordHash` is for re-hashing the same password, sessions kept.)
     */
    async changePassword(id: string, passwordHash: string, changeRequired: boolean): Promise<void> {
      await db
        .updateTable('accounts')
        .set({
          password_hash: passwordHash,
          password_change_required: changeRequired ? 1 : 0,
          session_generation: sql<number>`session_generation + 1`,
          updated_at: clock.now(),
        })
        .where('id', '=', id)
        .execute();
    },

    /**
     * Disables (or enables) the account. Either way its session generation moves: disabling ends
     * every session, and enabling again never brings one back. Announced, so that every process's
     * API-key cache drops the account at once.
     */
    async setDisabled(id: string, disabled: boolean): Promise<void> {
      const now = clock.now();
      await changeAuthenticated((executor) =>
        executor
          .updateTable('accounts')
          .set({
            disabled_at: disabled ? now : null,
            session_generation: sql<number>`session_generation + 1`,
            updated_at: now,
          })
          .where('id', '=', id)
          .execute(),
      );
    },

    async updatePasswordHash(id: string, passwordHash: string): Promise<void> {
      await db
        .updateTable('accounts')
        .set({ password_hash: passwordHash, updated_at: clock.now() })
        .where('id', '=', id)
        .execute();
    },

    // An account's upstream keys are kept in memory by every node (upstream-key-cache.ts): their
    // changes are announced as those of what authentication returns.
    async putUpstreamKey(accountId: string, provider: string, ciphertext: string): Promise<void> {
      await changeAuthenticated((executor) =>
        executor
          .insertInto('upstream_keys')
          .values({ account_id: accountId, provider, ciphertext, created_at: clock.now() })
          .onConflict((oc) =>
            oc.columns(['account_id', 'provider']).doUpdateSet({ ciphertext, created_at: clock.now() }),
          )
          .execute(),
      );
    },

    async deleteUpstreamKey(accountId: string, provider: string): Promise<void> {
      await changeAuthenticated((executor) =>
        executor
          .deleteFrom('upstream_keys')
          .where('account_id', '=', accountId)
          .where('provider', '=', provider)
          .execute(),
      );
    },

    async getUpstreamKey(accountId: string, provider: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('upstream_keys')
        .select('ciphertext')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .executeTakeFirst();
      return row?.ciphertext;
    },

    async upstreamKeyProviders(accountId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('upstream_keys')
        .select('provider')
        .where('account_id', '=', accountId)
        .execute();
      return rows.map((r) => r.provider);
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
