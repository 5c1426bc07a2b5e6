import { isOneOf } from '../../base/collections/closed-set.js';
import { createRecentMap } from '../../base/collections/recent-map.js';
import { EMAIL_PATTERN, MAX_EMAIL_LENGTH } from '../../base/contract/formats.js';
import { InvalidInput, NotFound, RateLimited } from '../../base/domain/errors.js';
import { TIERS, type Tier } from '../../base/domain/tiers.js';
import { type Clock, systemClock } from '../../base/runtime/clock.js';
import type { SecretBox } from '../../base/secrets/secret-box.js';
import type { AccountChanges } from './account-changes.js';
import type { Account, AccountsRepository } from './accounts-repository.js';
import { createApiKeyCache } from './api-key-cache.js';
import { createApiKeyManagement } from './api-key-management.js';
import { LAST_USED_WRITE_INTERVAL_MS } from './api-keys-repository.js';
import { apiKeyHint, generateApiKey, hashApiKey } from './credentials.js';
import { createPasswordHashing, type PasswordHashing } from './password-hashing.js';
import { createUpstreamKeyCache } from './upstream-key-cache.js';
import { openUpstreamKey, upstreamKeyContext } from './upstream-key-seals.js';

/** Normalises and checks an e-mail address (the account's login name). */
export function normalizeEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(value) || value.length > MAX_EMAIL_LENGTH)
    throw new InvalidInput(`invalid email: ${email}`, 'email');
  return value;
}

/** Checks a tier name against the spec's enum. */
export function parseTier(tier: string): Tier {
  if (!isOneOf(TIERS, tier)) {
    throw new InvalidInput(`tier must be one of ${TIERS.join(', ')}`, 'tier');
  }
  return tier;
}

export interface UpstreamKeyResolver {
  /** The key to use for this account and provider: its own, else the deployment's, else null. */
  resolve(accountId: string, provider: string): Promise<string | null>;
  /** The account's own key for the provider (`set-upstream-key`), which overrides the deployment's pool. */
  own?(accountId: string, provider: string): Promise<string | undefined>;
}

/** What the accounts service is built from. */
export interface AccountsServiceDeps {
  accounts: AccountsRepository;
  secrets: SecretBox;
  /** Provider name → the deployment-wide key from the environment. */
  deploymentKeys: Record<string, string | undefined>;
  /** A key of the deployment's pool for the provider that is in service, if any (has_key, generate). */
  pooledKey?: ((provider: string) => Promise<string | undefined>) | undefined;
  /** Keep API-key lookups in memory, trusted while `changes` says accounts have not changed. */
  keyCache?: { changes: AccountChanges; clock: Clock } | undefined;
  /** What a key's expiry and last use are measured with. */
  clock?: Clock;
  /** Password hashing on its own bounded pool (one per node). */
  passwords?: PasswordHashing;
}

/** The settled parts every account use reads. */
interface AccountsContext {
  accounts: AccountsRepository;
  secrets: SecretBox;
  clock: Clock;
  passwords: PasswordHashing;
}

/**
 * Bearer-key authentication: one indexed read by hash, or the account itself when it is kept;
 * undefined for an unknown, revoked or expired key. A found key still has to be in date (checked on
 * every request, so expiry needs no change signal); its use is recorded at most once a minute, off
 * the request's path.
 */
function apiKeyAuthentication(
  { accounts, clock }: AccountsContext,
  keyCache: AccountsServiceDeps['keyCache'],
): (apiKey: string) => Account | undefined | Promise<Account | undefined> {
  const lookup = (hash: string) => accounts.findByApiKeyHash(hash);
  const findByApiKeyHash = keyCache ? createApiKeyCache({ lookup, ...keyCache }) : lookup;
  // Key id → when this node last wrote its last use: at most one write a minute per key and node.
  const lastUseWrites = createRecentMap<string, number>(10_000);
  const inDate = (account: Account | undefined): Account | undefined => {
    const key = account?.apiKey;
    if (!key) return account;
    const now = clock.now();
    if (key.expiresAt !== null && key.expiresAt <= now) return undefined;
    const written = lastUseWrites.get(key.id);
    if (written === undefined || now - written >= LAST_USED_WRITE_INTERVAL_MS) {
      lastUseWrites.set(key.id, now);
      // Best effort: a failed write (a store closing) is tried again on the key's next use.
      accounts.keys.touch(key.id, now).catch(() => lastUseWrites.delete(key.id));
    }
    return account;
  };
  return (apiKey) => {
    const found = findByApiKeyHash(hashApiKey(apiKey));
    return found instanceof Promise ? found.then(inDate) : inDate(found);
  };
}

/** The upstream key of an account and provider: its own, else the deployment's pool or key. */
function upstreamKeyResolver(
  { accounts, secrets }: AccountsContext,
  { keyCache, pooledKey, deploymentKeys }: AccountsServiceDeps,
): UpstreamKeyResolver {
  const ownUpstreamKey = async (accountId: string, provider: string): Promise<string | undefined> => {
    const sealed = await accounts.getUpstreamKey(accountId, provider);
    return sealed === undefined ? undefined : openUpstreamKey(secrets, sealed, accountId, provider);
  };
  // Read before every upstream call of a task: kept while accounts have not changed (as API keys).
  const findUpstreamKey = keyCache
    ? createUpstreamKeyCache({ lookup: ownUpstreamKey, ...keyCache })
    : ownUpstreamKey;
  return {
    async resolve(accountId, provider) {
      const own = await findUpstreamKey(accountId, provider);
      if (own !== undefined) return own;
      return (pooledKey ? await pooledKey(provider) : deploymentKeys[provider]) ?? null;
    },
    own: (accountId, provider) => findUpstreamKey(accountId, provider),
  };
}

/** A new account with its first API key (the key is shown once). */
async function createAccount(
  { accounts, passwords }: AccountsContext,
  input: { email: string; tier?: string; password?: string },
) {
  const email = normalizeEmail(input.email);
  const tier = parseTier(input.tier ?? 'trial');
  const exists = () => new InvalidInput(`an account with email ${email} exists`, 'email');
  if (await accounts.findByEmail(email)) throw exists();
  if (input.password !== undefined && input.password.length < 8) {
    throw new InvalidInput('password must be at least 8 characters', 'password');
  }
  const apiKey = generateApiKey();
  const account = await accounts.insert({
    email,
    tier,
    passwordHash: input.password === undefined ? null : await passwords.hash(input.password),
    apiKeyHash: hashApiKey(apiKey),
    apiKeyHint: apiKeyHint(apiKey),
  });
  if (!account) throw exists();
  return { account, apiKey };
}

async function changePassword(
  { accounts, passwords }: AccountsContext,
  accountId: string,
  password: string,
  changeRequired: boolean,
) {
  if (password.length < 8) throw new InvalidInput('password must be at least 8 characters', 'password');
  await accounts.changePassword(accountId, await passwords.hash(password), changeRequired);
}

/**
 * Checks email + password; the same undefined, after the same full-size hash, for an unknown
 * email, an account without a password and a wrong password. `beforeHash` runs once a hashing
 * slot is held (the sign-in throttle counts the attempt there). A hash made with weaker
 * parameters than today's is replaced after a successful check (a busy pool leaves it for next time).
 */
async function verifyLogin(
  { accounts, passwords }: AccountsContext,
  email: string,
  password: string,
  beforeHash?: () => Promise<void>,
): Promise<Account | undefined> {
  const found = await accounts.findByEmail(email.trim().toLowerCase());
  const check = await passwords.verify(password, found?.passwordHash, beforeHash);
  if (!check.ok || !found) return undefined;
  if (check.outdated) {
    try {
      await accounts.updatePasswordHash(found.account.id, await passwords.hash(password));
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
    }
  }
  return found.account;
}

/** Sign-in, passwords and sessions: what the website and the CLI check and change. */
function credentialUses(context: AccountsContext) {
  const { accounts, passwords } = context;
  return {
    /**
     * The person sets their own password (clearing an operator's reset); every session of the
     * account ends (the website starts a new one for its own).
     */
    setPassword: (accountId: string, password: string) => changePassword(context, accountId, password, false),
    /**
     * An operator's reset (the console, the CLI): every session ends, and the next website sign-in
     * can do nothing but set the person's own password. API keys are not affected.
     */
    resetPassword: (accountId: string, password: string) =>
      changePassword(context, accountId, password, true),

    /**
     * What a website session is checked against: the account (undefined when unknown or disabled)
     * and the generation its sessions must belong to.
     */
    async sessionStanding(accountId: string): Promise<{ account: Account; generation: number } | undefined> {
      const found = await accounts.findWithCredentials(accountId);
      if (!found || found.account.disabled) return undefined;
      return { account: found.account, generation: found.sessionGeneration };
    },

    /**
     * Re-authentication of a signed-in person (changing the password, rotating the key): whether
     * this is the account's password. An account with no password has nothing to confirm with.
     */
    async confirmPassword(accountId: string, password: string): Promise<'ok' | 'wrong' | 'no-password'> {
      const found = await accounts.findWithCredentials(accountId);
      if (!found?.passwordHash) return 'no-password';
      return (await passwords.verify(password, found.passwordHash)).ok ? 'ok' : 'wrong';
    },

    /** See verifyLogin above. */
    verifyLogin: (email: string, password: string, beforeHash?: () => Promise<void>) =>
      verifyLogin(context, email, password, beforeHash),
  };
}

/** An account's standing: tier, disabled, operator. */
function standingUses({ accounts }: AccountsContext) {
  return {
    async setTier(accountId: string, tier: string): Promise<void> {
      await accounts.updateTier(accountId, parseTier(tier));
    },
    /**
     * Disables the account: its API key is refused at once on every node (the change is announced
     * to every process's key cache), its sessions end, and no new one starts. For the CLI and the
     * operator console.
     */
    disable: (accountId: string) => accounts.setDisabled(accountId, true),
    /** Enables a disabled account again: the same key works again; its old sessions stay ended. */
    enable: (accountId: string) => accounts.setDisabled(accountId, false),
    /** disable or enable, as one function (the operator console). */
    setDisabled: (accountId: string, disabled: boolean) => accounts.setDisabled(accountId, disabled),

    /** Makes the account an operator, or not (the operator console's gate); takes effect at once. */
    setOperator: (accountId: string, operator: boolean) => accounts.setOperator(accountId, operator),
    /** Whether the account is an operator, read fresh from the store (never from a cache). */
    async isOperator(accountId: string): Promise<boolean> {
      return (await accounts.findById(accountId))?.operator === true;
    },
  };
}

/** Stores the account's own upstream key, sealed; an empty key removes it. */
async function setUpstreamKey(
  { accounts, secrets }: AccountsContext,
  accountId: string,
  provider: string,
  key: string,
): Promise<void> {
  const trimmed = key.trim();
  if (trimmed === '') return accounts.deleteUpstreamKey(accountId, provider);
  if (trimmed.length > 4096) throw new InvalidInput('upstream key is too long', 'key');
  await accounts.putUpstreamKey(
    accountId,
    provider,
    secrets.seal(trimmed, upstreamKeyContext(accountId, provider)),
  );
}

/** Account use cases shared by the CLI, the API and the website. */
export function createAccountsService(deps: AccountsServiceDeps) {
  const { accounts, keyCache } = deps;
  const context: AccountsContext = {
    accounts,
    secrets: deps.secrets,
    clock: deps.clock ?? keyCache?.clock ?? systemClock,
    passwords: deps.passwords ?? createPasswordHashing(),
  };
  const keyManagement = createApiKeyManagement({ keys: accounts.keys, clock: context.clock });

  return {
    create: (input: { email: string; tier?: string; password?: string }) => createAccount(context, input),
    async requireByEmail(email: string): Promise<Account> {
      const found = await accounts.findByEmail(normalizeEmail(email));
      if (!found) throw new NotFound(`no account with email ${email}`);
      return found.account;
    },
    keyResolver: upstreamKeyResolver(context, deps),
    /**
     * Bearer-key authentication: one indexed read by hash, or the account itself when it is kept;
     * undefined for an unknown, revoked or expired key. The account carries the key (`apiKey`: its
     * id and scope).
     */
    authenticateApiKey: apiKeyAuthentication(context, keyCache),

    /** listKeys, createKey, revokeKey, rotateApiKey: the account's API keys (api-key-management.ts). */
    ...keyManagement,
    ...standingUses(context),
    ...credentialUses(context),

    setUpstreamKey: (accountId: string, provider: string, key: string) =>
      setUpstreamKey(context, accountId, provider, key),
    upstreamKeyProviders: (accountId: string) => accounts.upstreamKeyProviders(accountId),

    findById: (accountId: string) => accounts.findById(accountId),

    /** Password hashes running and waiting on this node. */
    passwordHashingLoad: context.passwords.load,

    /** The last characters of the account's API key (the key itself is never kept). */
    apiKeyHint: (accountId: string) => accounts.apiKeyHint(accountId),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
