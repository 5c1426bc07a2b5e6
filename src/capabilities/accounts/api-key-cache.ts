import { createRecentMap } from '../../base/collections/recent-map.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { AccountChanges } from './account-changes.js';
import type { Account } from './accounts-repository.js';

/** How long a remembered key is trusted without a fresh read, whatever the change signal says. */
export const API_KEY_CACHE_MAX_AGE_MS = 60_000;
/** Keys kept by default, most recently used (the bound the soak bench, M1, reports). */
export const API_KEYS_KEPT = 10_000;

/**
 * The API-key lookup every API request begins with, answered from memory while nothing about
 * accounts has changed. The key's hash is looked up (the key itself is never kept). An entry is
 * trusted only while the store's account-change stamp is the one read before it was fetched —
 * any key rotation or tier change, in this process, in the CLI or on another node, moves the stamp
 * — and for at most a minute (a backstop for a change made behind Atelier's back, such as a hand
 * edit of the PostgreSQL table). Unknown keys are never kept: a caller spraying bad keys only
 * costs queries, not memory.
 */
export function createApiKeyCache({
  lookup,
  changes,
  clock,
  capacity = API_KEYS_KEPT,
}: {
  lookup: (apiKeyHash: string) => Promise<Account | undefined>;
  changes: AccountChanges;
  clock: Clock;
  capacity?: number;
}) {
  const entries = createRecentMap<string, { account: Account; stamp: number; at: number }>(capacity);
  // A kept answer is returned as is, not in a promise: every API request starts here.
  return (apiKeyHash: string): Account | Promise<Account | undefined> => {
    const stamp = changes.stamp();
    const now = clock.now();
    const known = entries.get(apiKeyHash);
    if (known !== undefined && known.stamp === stamp && now - known.at < API_KEY_CACHE_MAX_AGE_MS) {
      return known.account;
    }
    return lookup(apiKeyHash).then((account) => {
      // The stamp read before the query: a change racing it leaves an entry that is already stale.
      if (account && stamp !== undefined)
        entries.set(apiKeyHash, { account: Object.freeze(account), stamp, at: now });
      else entries.delete(apiKeyHash);
      return account;
    });
  };
}
