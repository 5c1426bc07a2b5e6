/**
 * The account as the rest of Atelier sees it, and the store's reads of accounts: by API key (every
 * API request's first query), by email, by id, with credentials, and the lists. The writes are in
 * accounts-repository.ts, on top of these.
 */
import type { Tier } from '../../base/domain/tiers.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { AccountsTable, ApiKeyScope } from '../../infra/store/schema/accounts.js';
import { DEFAULT_KEY_NAME, type RepositoryDeps } from './api-keys-repository.js';

/** The API key a request was authenticated with (absent on a website session). */
export interface ApiKeyUse {
  /** `key_…` */
  id: string;
  name: string;
  scope: ApiKeyScope;
  /** When the key stops working (checked on every request); null for never. */
  expiresAt: number | null;
  /** Present (true) only on a key that stores nothing: its works are zero-retention (migration 0076). */
  zeroRetention?: true;
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

export function toAccount(row: AccountRow): Account {
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

/** A key that is not revoked, with its account (expiry is the caller's to check: it passes in time). */
function byApiKeyHashQuery({ db }: RepositoryDeps) {
  return compiledOnce(1, (hash: string) =>
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
        'api_keys.zero_retention as key_zero_retention',
      ])
      .where('api_keys.key_hash', '=', hash)
      .where('api_keys.revoked_at', 'is', null),
  );
}

/** Store queries that read accounts. */
export class AccountReads {
  private readonly byApiKeyHash: ReturnType<typeof byApiKeyHashQuery>;

  constructor(protected readonly deps: RepositoryDeps) {
    this.byApiKeyHash = byApiKeyHashQuery(deps);
  }

  /** Every API request's first query: compiled once. The account with the key it was found by. */
  async findByApiKeyHash(hash: string): Promise<Account | undefined> {
    const [row] = (await this.deps.db.executeQuery(this.byApiKeyHash(hash))).rows;
    if (!row) return undefined;
    const expires = row.key_expires_at;
    return {
      ...toAccount(row),
      apiKey: {
        id: row.key_id,
        name: row.key_name,
        scope: row.key_scope,
        expiresAt: expires === null ? null : Number(expires),
        ...(Number(row.key_zero_retention ?? 0) === 1 ? { zeroRetention: true as const } : {}),
      },
    };
  }

  async findByEmail(email: string) {
    const row = await this.deps.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row && { account: toAccount(row), passwordHash: row.password_hash };
  }

  async findById(id: string): Promise<Account | undefined> {
    const row = await this.deps.db
      .selectFrom('accounts')
      .select(ACCOUNT_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  /** The account with its session generation and password hash: what a website session is checked against. */
  async findWithCredentials(
    id: string,
  ): Promise<{ account: Account; sessionGeneration: number; passwordHash: string | null } | undefined> {
    const row = await this.deps.db
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
  }

  /**
   * The hint of the account's default key (its newest working full key named `default`), for
   * telling keys apart (the key itself is never kept); undefined when it has none.
   */
  async apiKeyHint(id: string): Promise<string | undefined> {
    return (await this.defaultKeyHints([id])).get(id);
  }

  async count(): Promise<number> {
    const row = await this.deps.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Every account with its default key's hint ('' when it has none working). */
  async list(): Promise<Array<Account & { apiKeyHint: string }>> {
    const rows = await this.deps.db
      .selectFrom('accounts')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const hints = await this.defaultKeyHints();
    return rows.map((row) => ({ ...toAccount(row), apiKeyHint: hints.get(row.id) ?? '' }));
  }

  async getUpstreamKey(accountId: string, provider: string): Promise<string | undefined> {
    const row = await this.deps.db
      .selectFrom('upstream_keys')
      .select('ciphertext')
      .where('account_id', '=', accountId)
      .where('provider', '=', provider)
      .executeTakeFirst();
    return row?.ciphertext;
  }

  async upstreamKeyProviders(accountId: string): Promise<string[]> {
    const rows = await this.deps.db
      .selectFrom('upstream_keys')
      .select('provider')
      .where('account_id', '=', accountId)
      .execute();
    return rows.map((r) => r.provider);
  }

  /** Account id → the hint of its newest working full key named `default` (of these accounts, or all). */
  private async defaultKeyHints(accountIds?: string[]): Promise<Map<string, string>> {
    let query = this.deps.db
      .selectFrom('api_keys')
      .select(['account_id', 'hint'])
      .where('name', '=', DEFAULT_KEY_NAME)
      .where('scope', '=', 'full')
      .where('revoked_at', 'is', null);
    if (accountIds) query = query.where('account_id', 'in', accountIds);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return new Map(rows.map((row) => [row.account_id, row.hint]));
  }
}
