import { sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

const DAY_MS = 24 * 60 * 60_000;
/** Spent windows are dropped once every this many hits on a node. */
const SWEEP_EVERY = 500;

/**
 * Fixed-window counters of the OAuth endpoints' rate limits, in the store, so that every node counts
 * against one budget per (endpoint, client address): N nodes are not N times the limit, and a
 * restart forgives nothing. One upsert per request counts the hit and starts a new window when the
 * last one is over.
 */
export function createOAuthRateWindows({ db, clock }: { db: Db; clock: Clock }) {
  let sinceSweep = 0;
  return {
    /** Counts a hit on `key`; the hits in its current window (this one included) and when it ends. */
    async hit(key: string, windowMs: number): Promise<{ hits: number; resetAt: number }> {
      const now = clock.now();
      const over = now - windowMs;
      const row = await db
        .insertInto('oauth_rate_windows')
        .values({ key, window_start: now, hits: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            hits: sql<number>`case when oauth_rate_windows.window_start <= ${over} then 1 else oauth_rate_windows.hits + 1 end`,
            window_start: sql<number>`case when oauth_rate_windows.window_start <= ${over} then ${now} else oauth_rate_windows.window_start end`,
          }),
        )
        .returning(['hits', 'window_start'])
        .executeTakeFirstOrThrow();
      if (++sinceSweep >= SWEEP_EVERY) {
        sinceSweep = 0;
        await db
          .deleteFrom('oauth_rate_windows')
          .where('window_start', '<', now - DAY_MS)
          .execute();
      }
      return { hits: Number(row.hits), resetAt: Number(row.window_start) + windowMs };
    },
  };
}

export type OAuthRateWindows = ReturnType<typeof createOAuthRateWindows>;
