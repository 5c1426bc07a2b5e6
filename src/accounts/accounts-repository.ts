import { sql } from 'kysely';
import type { Tier } from '../domain/tiers.js';
import type { Clock } from '../runtime/clock.js';
import type { IdGenerator } from '../runtime/ids.js';
import { compiledOnce } from '../store/compiled-once.js';
import type { Db } from '../store/database.js';
import type { AccountsTable } from '../store/schema.js';
import type { AccountChanges } from './account-changes.js';

export interface Account {
  id: string;
  email: string;
  tier: Tier;
  createdAt: number;
  /** Present (true) only on a disabled account: its key and sessions are refused. */
  disabled?: true;
}

type AccountRow = Pick<AccountsTable, 'id' | 'email' | 'tier' | 'created_at'> &
  Partial<Pick<AccountsTable, 'disabled_at'>>;

function toAccount(row: AccountRow): Account {
  const account: Account = {
    id: row.id,
    email: row.email,
    tier: row.tier,
    createdAt: Number(row.created_at),
  };
  if (row.disabled_at !== null && row.disabled_at !== undefined) account.disabled = true;
  return account;
}

/** The columns an account is read with. */
const ACCOUNT_COLUMNS = ['id', 'email', 'tier', 'created_at', 'disabled_at'] as const;

/** Store queries for accounts and their sealed upstream keys. */
export function createAccountsRepository({
  db,
  clock,
  ids,
  changes,
}: {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Told of every change of a key or a tier (what the API-key cache of every process keeps). */
  changes?: AccountChanges | undefined;
}) {
  /** Runs an update of what authentication returns, announced in its own transaction. */
  const changeAuthenticated = async (update: (executor: Db) => Promise<unknown>) => {
    if (!changes) return void (await update(db));
    await db.transaction().execute(async (trx) => {
      await update(trx);
      await changes.announce(trx);
    });
    changes.changedHere();
  };
  const byApiKeyHash = compiledOnce(1, (hash: string) =>
    db.selectFrom('accounts').select(ACCOUNT_COLUMNS).where('api_key_hash', '=', hash),
  );
  return {
    /**
     * Inserts an account; undefined when the email is taken. The unique index decides, so two nodes
     * creating the same account at once (the first-start demo account) never both succeed or crash.
     */
    async insert(input: {
      email: string;
      tier: Tier;
      passwordHash: string | null;
      apiKeyHash: string;
      apiKeyHint: string;
    }): Promise<Account | undefined> {
      const now = clock.now();
      const row = {
        id: ids.next('acc'),
        email: input.email,
        tier: input.tier,
        password_hash: input.passwordHash,
        api_key_hash: input.apiKeyHash,
        api_key_hint: input.apiKeyHint,
        created_at: now,
        updated_at: now,
      };
      const result = await db
        .insertInto('accounts')
        .values(row)
        .onConflict((oc) => oc.column('email').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1 ? toAccount(row) : undefined;
    },

    /** Every API request's first query: compiled once. */
    async findByApiKeyHash(hash: string): Promise<Account | undefined> {
      const [row] = (await db.executeQuery(byApiKeyHash(hash))).rows;
      return row && toAccount(row);
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
        .select([...ACCOUNT_COLUMNS, 'session_generation', 'password_hash'])
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

    /** The last characters of the account's API key, for telling keys apart (the key itself is never kept). */
    async apiKeyHint(id: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select('api_key_hint')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.api_key_hint;
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async list(): Promise<Array<Account & { apiKeyHint: string }>> {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map((row) => ({ ...toAccount(row), apiKeyHint: row.api_key_hint }));
    },

    async updateApiKey(id: string, apiKeyHash: string, apiKeyHint: string): Promise<void> {
      await changeAuthenticated((executor) =>
        executor
          .updateTable('accounts')
          .set({ api_key_hash: apiKeyHash, api_key_hint: apiKeyHint, updated_at: clock.now() })
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
     * one statement. (`updatePasswordHash` is for re-hashing the same password, sessions kept.)
     */
    async changePassword(id: string, passwordHash: string): Promise<void> {
      await db
        .updateTable('accounts')
        .set({
          password_hash: passwordHash,
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

    async putUpstreamKey(accountId: string, provider: string, ciphertext: string): Promise<void> {
      await db
        .insertInto('upstream_keys')
        .values({ account_id: accountId, provider, ciphertext, created_at: clock.now() })
        .onConflict((oc) =>
          oc.columns(['account_id', 'provider']).doUpdateSet({ ciphertext, created_at: clock.now() }),
        )
        .execute();
    },

    async deleteUpstreamKey(accountId: string, provider: string): Promise<void> {
      await db
        .deleteFrom('upstream_keys')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .execute();
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
