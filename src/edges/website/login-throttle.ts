import { randomUUID } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

export interface ThrottleBudget {
  /** Attempts allowed back to back; the next one opens the first wait. */
  freeFailures: number;
  /** The first wait; it doubles with each further counted attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key's record is forgotten this long after its last counted attempt (and then deleted). */
  forgetAfterMs: number;
}

export interface LoginThrottleOptions {
  /** Per e-mail and client address: a person mistyping is held up alone. */
  perAddress: ThrottleBudget;
  /** Per e-mail whatever the address: guesses spread over many addresses are bounded too. */
  perEmail: ThrottleBudget;
}

const MINUTE = 60 * 1000;
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  perAddress: { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 5 * MINUTE, forgetAfterMs: 30 * MINUTE },
  perEmail: { freeFailures: 10, baseDelayMs: 1000, maxDelayMs: 5 * MINUTE, forgetAfterMs: 30 * MINUTE },
};

/** A sign-in attempt, counted before its password is checked. */
export type SignInAttempt =
  /** Counted: check the password. A failure must then wait `waitAfterFailureMs` before the next try. */
  | { allowed: true; waitAfterFailureMs: number }
  /** Not counted and not to be checked: the key waits this long still. */
  | { allowed: false; retryAfterMs: number };

const bigint = (value: number) => sql<number>`cast(${value} as bigint)`;

/**
 * Slows repeated sign-in attempts per e-mail and client address, and per e-mail alone: after a few
 * free attempts each further one doubles a waiting period during which attempts are refused
 * without checking the password. Every attempt is counted BEFORE its password is checked, by one
 * atomic upsert that either counts it or (the key is waiting) leaves the record as it was, so
 * guesses sent at once are counted one by one and only the free ones get checked. The records live
 * in the database (`sign_in_failures`), so every node shares one budget per key; a success clears
 * the e-mail's records.
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
  /** Counts one attempt on `key` if it is not waiting; one statement, whatever runs beside it. */
  async function count(key: string, budget: ThrottleBudget, now: number) {
    const attemptId = randomUUID();
    const { freeFailures, baseDelayMs, maxDelayMs } = budget;
    const firstDelay = freeFailures >= 1 ? 0 : baseDelayMs;
    const row = sql.ref<number>;
    const stale = sql`${row('sign_in_failures.last_failure_at')} < ${bigint(now - budget.forgetAfterMs)}`;
    const waiting = sql`${row('sign_in_failures.blocked_until')} > ${bigint(now)}`;
    const next = sql<number>`${row('sign_in_failures.failures')} + 1`;
    // The wait the previous counted attempt opened is blocked_until − last_failure_at; the next
    // one doubles it (capped), once the free attempts are spent.
    const doubled = sql<number>`2 * (${row('sign_in_failures.blocked_until')} - ${row('sign_in_failures.last_failure_at')})`;
    const nextDelay = sql<number>`case when ${next} <= ${freeFailures} then ${bigint(0)}
      when ${next} = ${freeFailures + 1} then ${bigint(baseDelayMs)}
      when ${doubled} > ${bigint(maxDelayMs)} then ${bigint(maxDelayMs)} else ${doubled} end`;
    const choose = <T>(ifStale: RawBuilder<T> | number, ifWaiting: RawBuilder<T>, ifCounted: RawBuilder<T>) =>
      sql<T>`case when ${stale} then ${ifStale} when ${waiting} then ${ifWaiting} else ${ifCounted} end`;
    const result = await db
      .insertInto('sign_in_failures')
      .values({
        key,
        failures: 1,
        last_failure_at: now,
        blocked_until: now + firstDelay,
        last_attempt_id: attemptId,
      })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          failures: choose(1, row('sign_in_failures.failures'), next),
          last_failure_at: choose(bigint(now), row('sign_in_failures.last_failure_at'), bigint(now)),
          blocked_until: choose(
            bigint(now + firstDelay),
            row('sign_in_failures.blocked_until'),
            sql<number>`${bigint(now)} + ${nextDelay}`,
          ),
          last_attempt_id: choose(
            sql`${attemptId}`,
            sql.ref('sign_in_failures.last_attempt_id'),
            sql`${attemptId}`,
          ),
        }),
      )
      .returning(['blocked_until', 'last_attempt_id'])
      .executeTakeFirstOrThrow();
    return {
      counted: result.last_attempt_id === attemptId,
      waitMs: Math.max(0, Number(result.blocked_until) - now),
    };
  }

  const keysOf = (email: string, address: string) =>
    [
      [`address:${email}|${address}`, options.perAddress],
      [`email:${email}`, options.perEmail],
    ] as const;

  return {
    /**
     * Counts a sign-in attempt before its password is checked. The per-address budget is asked
     * first, so guesses from one address that is already waiting never spend the e-mail's budget
     * (which would lock its owner out from everywhere).
     */
    async attempt(email: string, address: string): Promise<SignInAttempt> {
      const now = clock.now();
      // Records past their quiet period are deleted as attempts come in (an index on
      // last_failure_at), so a flood of keys cannot grow the table without bound.
      const forgetAfterMs = Math.max(options.perAddress.forgetAfterMs, options.perEmail.forgetAfterMs);
      await db
        .deleteFrom('sign_in_failures')
        .where('last_failure_at', '<', now - forgetAfterMs)
        .execute();
      let waitAfterFailureMs = 0;
      for (const [key, budget] of keysOf(email, address)) {
        const { counted, waitMs } = await count(key, budget, now);
        if (!counted) return { allowed: false, retryAfterMs: waitMs };
        waitAfterFailureMs = Math.max(waitAfterFailureMs, waitMs);
      }
      return { allowed: true, waitAfterFailureMs };
    },

    /** A successful sign-in clears the e-mail's records (this address's and the e-mail's own). */
    async succeeded(email: string, address: string): Promise<void> {
      const keys = keysOf(email, address).map(([key]) => key);
      await db.deleteFrom('sign_in_failures').where('key', 'in', keys).execute();
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
