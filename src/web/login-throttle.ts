import type { Clock } from '../platform/clock.js';

export interface LoginThrottleOptions {
  /** Failures allowed before any delay. */
  freeFailures: number;
  /** Delay after the first failure beyond the free ones; it doubles with each further failure. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key's record is forgotten this long after its last failure. */
  forgetAfterMs: number;
  /** Most keys kept: beyond this the oldest records go first, so a flood cannot grow memory. */
  maxKeys: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  freeFailures: 3,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60 * 1000,
  forgetAfterMs: 30 * 60 * 1000,
  maxKeys: 50_000,
};

interface FailureRecord {
  failures: number;
  lastFailureAt: number;
  /** Before this instant, sign-in attempts for the key are refused without checking the password. */
  blockedUntil: number;
}

/**
 * Slows repeated sign-in failures per key (email + client address): after a few free failures
 * each further one doubles a waiting period during which attempts are refused outright, so
 * guessing in parallel gains nothing. In memory, per process: a deployment of several nodes
 * gives an attacker at most one budget per node, which still bounds guessing to a crawl.
 */
export function createLoginThrottle(clock: Clock, options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE) {
  const records = new Map<string, FailureRecord>();

  function live(key: string): FailureRecord | undefined {
    const record = records.get(key);
    if (record && clock.now() - record.lastFailureAt > options.forgetAfterMs) {
      records.delete(key);
      return undefined;
    }
    return record;
  }

  return {
    /** How long the key must still wait before its next attempt; 0 when it may try now. */
    retryAfterMs(key: string): number {
      const record = live(key);
      return record ? Math.max(0, record.blockedUntil - clock.now()) : 0;
    },

    /** Records a failed attempt; returns the wait now imposed before the next one (0 while failures are free). */
    recordFailure(key: string): number {
      const now = clock.now();
      const record = live(key) ?? { failures: 0, lastFailureAt: now, blockedUntil: 0 };
      record.failures += 1;
      record.lastFailureAt = now;
      const over = record.failures - options.freeFailures;
      const delay = over > 0 ? Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (over - 1)) : 0;
      record.blockedUntil = now + delay;
      records.delete(key); // re-inserted last: Map order is then least-recently-failed first
      records.set(key, record);
      while (records.size > options.maxKeys) {
        const oldest = records.keys().next().value;
        if (oldest === undefined) break;
        records.delete(oldest);
      }
      return delay;
    },

    /** A successful sign-in clears the key's record. */
    recordSuccess(key: string): void {
      records.delete(key);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
