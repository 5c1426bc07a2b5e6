import { sql } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../store/database.js';

export interface LoginThrottleOptions {
  /** Failures allowed before any delay. */
  freeFailures: number;
  /** Delay after the first failure beyond the free ones; it doubles with each further failure. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key's record is forgotten this long after its last failure (and then deleted). */
  forgetAfterMs: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  freeFailures: 3,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60 * 1000,
  forgetAfterMs: 30 * 60 * 1000,
};

/**
 * Slows repeated sign-in failures per key (email + client address): after a few free failures
 * each further one doubles a waiting period during which attempts are refused outright, so
 * guessing in parallel gains nothing. The records live in the database (`sign_in_failures`), so
 * every node of a deployment shares one budget per key; a failure is counted by one atomic upsert.
 */
export function createLoginThrottle({
  db,
  clock,
  options = DEFAULT_LOGIN_THROTTLE,
}: {
  db: Db;
  clock: Clock;
  options?: LoginThrottleOptions;
}) {
  const delayAfter = (failures: number) => {
    const over = failures - options.freeFailures;
    return over > 0 ? Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (over - 1)) : 0;
  };

  return {
    /** How long the key must still wait before its next attempt; 0 when it may try now. */
    async retryAfterMs(key: string): Promise<number> {
      const now = clock.now();
      const row = await db
        .selectFrom('sign_in_failures')
        .select('blocked_until')
        .where('key', '=', key)
        .where('last_failure_at', '>=', now - options.forgetAfterMs)
        .executeTakeFirst();
      return row ? Math.max(0, row.blocked_until - now) : 0;
    },

    /** Records a failed attempt; returns the wait now imposed before the next one (0 while failures are free). */
    async recordFailure(key: string): Promise<number> {
      const now = clock.now();
      const forgottenBefore = now - options.forgetAfterMs;
      // Records past their quiet period are deleted as failures come in (an index on last_failure_at),
      // so a flood of keys cannot grow the table without bound.
      await db.deleteFrom('sign_in_failures').where('last_failure_at', '<', forgottenBefore).execute();
      const { failures } = await db
        .insertInto('sign_in_failures')
        .values({ key, failures: 1, last_failure_at: now, blocked_until: 0 })
        .onConflict((conflict) =>
          conflict.column('key').doUpdateSet({
            failures: sql<number>`sign_in_failures.failures + 1`,
            last_failure_at: now,
          }),
        )
        .returning('failures')
        .executeTakeFirstOrThrow();
      const delay = delayAfter(failures);
      await db
        .updateTable('sign_in_failures')
        .set({ blocked_until: now + delay })
        .where('key', '=', key)
        .execute();
      return delay;
    },

    /** A successful sign-in clears the key's record. */
    async recordSuccess(key: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('key', '=', key).execute();
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
