import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import { type CapacityLimits, configuredPerMinute } from './capacity-pool.js';
import { callsLimit, holdsLimit, type LearningRules, quotaRoom } from './pool-learning.js';

/**
 * Why a pool lets no call leave now (the operator's queue view): a refusal's Retry-After, the request
 * budget the upstream reported, the catalog's calls per minute, the catalog's calls at once, or the
 * calls at once learned from refusals (or the ramp that is finding them).
 */
export const POOL_HOLD_REASONS = [
  'rate_limit_refusal',
  'request_budget',
  'per_minute_limit',
  'configured_limit',
  'learned_limit',
] as const;
export type PoolHoldReason = (typeof POOL_HOLD_REASONS)[number];

/** A pool's hold: why, and until when (null: until a call in flight ends). */
export interface PoolHold {
  reason: PoolHoldReason;
  until: number | null;
}

/** What the store counts of a pool's calls, beside its row. */
export interface PoolCallFacts {
  /** Calls holding a slot now. */
  inFlight: number;
  /** Calls started (and not refused) in the window, and the oldest one's start. */
  inWindow: number;
  oldestInWindow: number | null;
  /** Calls started (and not refused) since the request budget was read. */
  sinceQuota: number;
}

/**
 * The first limit that holds the pool now, in the order the capacity gate's room reads them
 * (pool-room.ts), or null when a call may leave. The calls-at-once limit of a ramp is read without
 * the evidence of its calls in flight (the ramp may be a step further than said).
 */
export function poolHold(
  rules: LearningRules,
  row: UpstreamPoolsTable,
  limits: CapacityLimits,
  facts: PoolCallFacts,
  now: number,
  windowSpan: number,
): PoolHold | null {
  const holdUntil = Number(row.hold_until);
  if (holdUntil > now) return { reason: 'rate_limit_refusal', until: holdUntil };
  if (row.quota_limit !== null) {
    const budget = quotaRoom(rules, row, facts.sinceQuota, now);
    if (budget.free < 1) return { reason: 'request_budget', until: budget.retryAt ?? null };
  }
  const perMinute = configuredPerMinute(limits);
  if (perMinute !== undefined && facts.inWindow >= perMinute)
    return { reason: 'per_minute_limit', until: (facts.oldestInWindow ?? now) + windowSpan + 1 };
  // As pool-room.ts reads it: the catalog's limit (or a lower one learned under it), else learned.
  const { maxInFlight } = limits;
  const learned =
    maxInFlight === undefined
      ? callsLimit(rules, row, now).limit
      : (row.learned_limit ?? Number.POSITIVE_INFINITY);
  const limit = Math.min(maxInFlight ?? Number.POSITIVE_INFINITY, learned);
  if (facts.inFlight < limit) return null;
  const configured = maxInFlight !== undefined && maxInFlight <= learned;
  return { reason: configured ? 'configured_limit' : 'learned_limit', until: null };
}

/** The learned limit in force (null: none learned, or forgotten), as the console shows it. */
export const learnedLimitNow = (rules: LearningRules, row: UpstreamPoolsTable, now: number): number | null =>
  holdsLimit(rules, row, now) ? row.learned_limit : null;
