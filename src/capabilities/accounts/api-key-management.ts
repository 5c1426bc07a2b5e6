import { isOneOf } from '../../base/collections/closed-set.js';
import { MAX_KEY_NAME_LENGTH } from '../../base/contract/formats.js';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { ApiKeyScope } from '../../infra/store/schema/accounts.js';
import {
  type ApiKey,
  type ApiKeysRepository,
  DEFAULT_KEY_NAME,
  type KeyRetentionChange,
} from './api-keys-repository.js';
import { apiKeyHint, generateApiKey, hashApiKey } from './credentials.js';

export const API_KEY_SCOPES = ['full', 'read'] as const satisfies readonly ApiKeyScope[];

/** Working keys an account may hold at once (a bound on what a stolen session could pile up). */
export const MAX_ACTIVE_KEYS = 100;
export { MAX_KEY_NAME_LENGTH };

/** Checks a scope name. */
export function parseKeyScope(scope: string): ApiKeyScope {
  if (!isOneOf(API_KEY_SCOPES, scope)) {
    throw new InvalidInput(`scope must be one of ${API_KEY_SCOPES.join(', ')}`, 'scope');
  }
  return scope;
}

/** Trims and checks a key's name: 1 to 64 characters, no control characters. */
export function parseKeyName(name: string): string {
  const value = name.trim();
  if (value === '' || value.length > MAX_KEY_NAME_LENGTH || /\p{Cc}/u.test(value)) {
    throw new InvalidInput(
      `name must be 1 to ${MAX_KEY_NAME_LENGTH} characters, without control characters`,
      'name',
    );
  }
  return value;
}

/** The longest retention a key (or an account) may set, in days (a hundred years). */
export const MAX_RETENTION_DAYS = 36_500;

/** Checks a key's retention change: days a whole number from 1 to 36500, or null. */
export function parseKeyRetention(change: KeyRetentionChange): KeyRetentionChange {
  const days = change.resultsRetentionDays;
  if (days != null && (!Number.isSafeInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
    throw new InvalidInput(
      `results_days must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null`,
      'results_days',
    );
  }
  return change;
}

/** A key as the caller asks for it. */
export interface KeyRequest {
  name: string;
  scope?: string | undefined;
  /** When it stops working (epoch ms); null or absent for never. Must be in the future. */
  expiresAt?: number | null | undefined;
  /** Days its results are kept (null or absent: the account's); whether it stores nothing. */
  resultsRetentionDays?: number | null | undefined;
  zeroRetention?: boolean | undefined;
}

/**
 * Creating, listing and revoking an account's API keys (the CLI, the website, the operator
 * console). The key itself is in the answer of `createKey` and `rotateDefaultKey` only.
 */
export function createApiKeyManagement({ keys, clock }: { keys: ApiKeysRepository; clock: Clock }) {
  const issue = () => {
    const apiKey = generateApiKey();
    return { apiKey, keyHash: hashApiKey(apiKey), hint: apiKeyHint(apiKey) };
  };

  /** The account's working key named by its id or its hint (with or without the trailing …). */
  async function findKey(accountId: string, ref: string): Promise<ApiKey> {
    const wanted = ref.trim();
    const working = await keys.list(accountId);
    const byId = working.find((key) => key.id === wanted);
    if (byId) return byId;
    const byHint = working.filter((key) => key.hint === wanted || key.hint === `${wanted}…`);
    if (byHint.length > 1) {
      throw new InvalidInput(`${byHint.length} keys have the hint ${wanted}: name one by its id`, 'key');
    }
    const [found] = byHint;
    if (!found) throw new NotFound(`no working key ${wanted} on this account`);
    return found;
  }

  return {
    /** The account's keys, oldest first (revoked ones only when asked). */
    listKeys: (accountId: string, options: { includeRevoked?: boolean } = {}) =>
      keys.list(accountId, options),

    /** A new key; the answer carries the key itself, which is never shown again. */
    async createKey(accountId: string, request: KeyRequest): Promise<{ key: ApiKey; apiKey: string }> {
      const name = parseKeyName(request.name);
      const scope = parseKeyScope(request.scope ?? 'full');
      const expiresAt = request.expiresAt ?? null;
      if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= clock.now())) {
        throw new InvalidInput('the expiry must be in the future', 'expires_at');
      }
      if ((await keys.countActive(accountId)) >= MAX_ACTIVE_KEYS) {
        throw new InvalidInput(
          `an account holds at most ${MAX_ACTIVE_KEYS} working keys; revoke one first`,
          'name',
        );
      }
      const { resultsRetentionDays = null, zeroRetention = false } = request;
      parseKeyRetention({ resultsRetentionDays });
      const { apiKey, keyHash, hint } = issue();
      const key = await keys.insert({
        ...{ accountId, name, scope, keyHash, hint, expiresAt },
        ...{ resultsRetentionDays, zeroRetention },
      });
      return { key, apiKey };
    },

    /**
     * Sets a working key's own retention (docs/operations.md, Data lifecycle): its results retention
     * (the shortest of deployment, tier, account and key applies) and whether it stores nothing.
     * By id only; another account's, a revoked or an unknown key → NotFound.
     */
    async setKeyRetention(accountId: string, keyId: string, change: KeyRetentionChange): Promise<ApiKey> {
      const key = await keys.setRetention(accountId, keyId, parseKeyRetention(change));
      if (!key) throw new NotFound(`no working key ${keyId} on this account`);
      return key;
    },

    /**
     * Revokes the account's key named by its id or hint; it is refused at once on every node (the
     * revocation is announced to every API-key cache). Unknown or already revoked → NotFound.
     */
    async revokeKey(accountId: string, ref: string): Promise<ApiKey> {
      const key = await findKey(accountId, ref);
      if ((await keys.revoke(accountId, [key.id])) === 0) {
        throw new NotFound(`no working key ${ref.trim()} on this account`);
      }
      return { ...key, revokedAt: clock.now() };
    },

    /**
     * `accounts rotate-key` and the website's rotation: every working full key named `default` is
     * revoked and a new full `default` key made (other keys are untouched); returns the new key.
     */
    async rotateApiKey(accountId: string): Promise<string> {
      const { apiKey, keyHash, hint } = issue();
      await keys.replaceDefault({
        accountId,
        name: DEFAULT_KEY_NAME,
        scope: 'full',
        keyHash,
        hint,
        expiresAt: null,
      });
      return apiKey;
    },
  };
}
