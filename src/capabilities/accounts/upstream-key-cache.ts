import { createRecentMap } from '../../base/collections/recent-map.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { AccountChanges } from './account-changes.js';
import { API_KEY_CACHE_MAX_AGE_MS } from './api-key-cache.js';

/** Entries kept by default, most recently used (the bound the soak bench, M1, reports). */
export const UPSTREAM_KEYS_KEPT = 10_000;

/**
 * An account's own upstream key for a provider (opened; undefined when it has none), read before
 * every upstream call of its tasks, answered from memory while nothing about accounts has changed:
 * an entry is trusted only while the store's account-change stamp is the one read before it was
 * fetched — setting or removing a key announces a change (in this process, in the CLI on the same
 * SQLite file, or on another PostgreSQL node, as for API keys) — and for at most a minute.
 */
export function createUpstreamKeyCache({
  lookup,
  changes,
  clock,
  capacity = UPSTREAM_KEYS_KEPT,
}: {
  lookup: (accountId: string, provider: string) => Promise<string | undefined>;
  changes: AccountChanges;
  clock: Clock;
  capacity?: number;
}) {
  const entries = createRecentMap<string, { key: string | undefined; stamp: number; at: number }>(capacity);
  return async (accountId: string, provider: string): Promise<string | undefined> => {
    const stamp = changes.stamp();
    const now = clock.now();
    const id = `${accountId}\n${provider}`;
    const known = entries.get(id);
    if (known !== undefined && known.stamp === stamp && now - known.at < API_KEY_CACHE_MAX_AGE_MS) {
      return known.key;
    }
    const key = await lookup(accountId, provider);
    // The stamp read before the query: a change racing it leaves an entry that is already stale.
    if (stamp !== undefined) entries.set(id, { key, stamp, at: now });
    else entries.delete(id);
    return key;
  };
}
