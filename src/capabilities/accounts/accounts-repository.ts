import { sql } from 'kysely';
import type { Tier } from '../../base/domain/tiers.js';
import type { Db } from '../../infra/store/database.js';
import { changeAnnounced } from './account-changes.js';
import { type Account, AccountReads, toAccount } from './account-reads.js';
import {
  type ApiKeysRepository,
  createApiKeysRepository,
  DEFAULT_KEY_NAME,
  insertApiKey,
  type RepositoryDeps,
} from './api-keys-repository.js';

export type { Account, ApiKeyUse } from './account-reads.js';

/**
 * What `accounts.api_key_hash` holds since migration 0028 moved keys to `api_keys`: unique per
 * account, and never the SHA-256 of a key.
 */
const movedKeyHash = (accountId: string) => `moved:${accountId}`;

/**
 * Store queries for accounts and their sealed upstream keys: the writes here, the reads inherited
 * from AccountReads (account-reads.ts), the API keys in `keys`.
 */
export class AccountsRepository extends AccountReads {
  /** The accounts' API keys (created, listed, revoked; last use). */
  readonly keys: ApiKeysRepository;

  constructor(deps: RepositoryDeps) {
    super(deps);
    this.keys = createApiKeysRepository(deps);
  }

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
    const now = this.deps.clock.now();
    const id = this.deps.ids.next('acc');
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
    return this.deps.db.transaction().execute(async (trx) => {
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
      await insertApiKey(trx, this.deps.ids.next('key'), key, now);
      return toAccount(row);
    });
  }

  /** Makes the account an operator (or not); announced, as what authentication returns changes. */
  async setOperator(id: string, operator: boolean): Promise<void> {
    await this.changeAuthenticated((executor) =>
      executor
        .updateTable('accounts')
        .set({ operator: operator ? 1 : 0, updated_at: this.deps.clock.now() })
        .where('id', '=', id)
        .execute(),
    );
  }

  async updateTier(id: string, tier: Tier): Promise<void> {
    await this.changeAuthenticated((executor) =>
      executor
        .updateTable('accounts')
        .set({ tier, updated_at: this.deps.clock.now() })
        .where('id', '=', id)
        .execute(),
    );
  }

  /**
   * A new password: the hash changes and the session generation moves (every session ends), in
   * one statement; `changeRequired` for one an operator set (the person must set their own next),
   * cleared when they do. (`updatePasswordHash` is for re-hashing the same password, sessions kept.)
   */
  async changePassword(id: string, passwordHash: string, changeRequired: boolean): Promise<void> {
    await this.deps.db
      .updateTable('accounts')
      .set({
        password_hash: passwordHash,
        password_change_required: changeRequired ? 1 : 0,
        session_generation: sql<number>`session_generation + 1`,
        updated_at: this.deps.clock.now(),
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Disables (or enables) the account. Either way its session generation moves: disabling ends
   * every session, and enabling again never brings one back. Announced, so that every process's
   * API-key cache drops the account at once.
   */
  async setDisabled(id: string, disabled: boolean): Promise<void> {
    const now = this.deps.clock.now();
    await this.changeAuthenticated((executor) =>
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
  }

  async updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.deps.db
      .updateTable('accounts')
      .set({ password_hash: passwordHash, updated_at: this.deps.clock.now() })
      .where('id', '=', id)
      .execute();
  }

  // An account's upstream keys are kept in memory by every node (upstream-key-cache.ts): their
  // changes are announced as those of what authentication returns.
  async putUpstreamKey(accountId: string, provider: string, ciphertext: string): Promise<void> {
    await this.changeAuthenticated((executor) =>
      executor
        .insertInto('upstream_keys')
        .values({ account_id: accountId, provider, ciphertext, created_at: this.deps.clock.now() })
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'provider'])
            .doUpdateSet({ ciphertext, created_at: this.deps.clock.now() }),
        )
        .execute(),
    );
  }

  async deleteUpstreamKey(accountId: string, provider: string): Promise<void> {
    await this.changeAuthenticated((executor) =>
      executor
        .deleteFrom('upstream_keys')
        .where('account_id', '=', accountId)
        .where('provider', '=', provider)
        .execute(),
    );
  }

  /** Runs an update of what authentication returns, announced in its own transaction. */
  private async changeAuthenticated(update: (executor: Db) => Promise<unknown>): Promise<void> {
    await changeAnnounced(this.deps.db, this.deps.changes, update);
  }
}

/** Store queries for accounts and their sealed upstream keys. */
export function createAccountsRepository(deps: RepositoryDeps): AccountsRepository {
  return new AccountsRepository(deps);
}
