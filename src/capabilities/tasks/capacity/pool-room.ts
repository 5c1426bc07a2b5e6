import type { Db } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import {
  type CapacityLimits,
  type CapacityPool,
  configuredPerMinute,
  hasConfiguredLimit,
} from './capacity-pool.js';
import type { CapacityReads } from './capacity-reads.js';
import { callsLimit, type LearningRules, quotaRoom, type RampEvidence, rampStart } from './pool-learning.js';

/** A ramp's next step is looked at no sooner than this (each look is a call-back round). */
const RAMP_TICK_MS = 20;

/**
 * The room on a pool: every limit in force (calls at once — configured, learned or a ramp —, the
 * catalog's calls per minute, the upstream's request budget), read inside the caller's transaction
 * on the pool's locked row.
 */
export function createPoolRoom({
  rules,
  reads,
  windowSpan,
}: {
  rules: LearningRules;
  reads: CapacityReads;
  windowSpan: number;
}) {
  /** The pool's limit on calls at once now: the catalog's, else learned (or a ramp) — see pool-learning.ts. */
  const limitOf = (row: UpstreamPoolsTable, limits: CapacityLimits, now: number, seen?: RampEvidence) =>
    limits.maxInFlight !== undefined
      ? { limit: Math.min(limits.maxInFlight, row.learned_limit ?? limits.maxInFlight), grows: undefined }
      : callsLimit(rules, row, now, seen);

  /**
   * Room on the pool now: how many more calls may start (Infinity when unbounded), or when it
   * returns (undefined: at a call's end); with room, when a ramp next grows (`growsAt`). Each limit in force answers; the pool has the least room,
   * and when it has none, room returns when every limit that has none has room again.
   */
  async function room(
    trx: Db,
    row: UpstreamPoolsTable,
    pool: CapacityPool,
    now: number,
  ): Promise<{
    free: number;
    retryAt: number | undefined;
    growsAt?: number | undefined;
    /** Full only because a ramp has not grown yet (it grows at `retryAt`). */
    ramping?: boolean;
  }> {
    if (row.hold_until > now) return { free: 0, retryAt: Number(row.hold_until) };
    const limits: Array<{ free: number; retryAt: number | undefined }> = [];
    // Without a limit on calls at once, the count of calls in flight decides nothing.
    if (Number.isFinite(limitOf(row, pool.limits, now).limit)) {
      const seen = await reads.rampEvidence(trx, pool.id, now - rules.rampStepMs);
      const { limit, grows } = limitOf(row, pool.limits, now, seen);
      limits.push({ free: limit - seen.inFlight, retryAt: grows && Math.max(grows, now + RAMP_TICK_MS) });
    }
    const perMinute = configuredPerMinute(pool.limits);
    if (perMinute !== undefined) {
      const used = await reads.windowUse(trx, pool.id, now);
      const windowFree = perMinute - used.count;
      limits.push({ free: windowFree, retryAt: windowFree <= 0 ? used.oldest + windowSpan + 1 : undefined });
    }
    if (row.quota_limit !== null) {
      const started = await reads.startedSince(trx, pool.id, Number(row.quota_seen_at));
      limits.push(quotaRoom(rules, row, started, now));
    }
    const full = limits.filter((limit) => limit.free < 1);
    if (full.length === 0) {
      const free = Math.min(Number.POSITIVE_INFINITY, ...limits.map((l) => l.free));
      // A ramp that the next grant fills grows at a known time: the granter must look again then,
      // or the pool stays full until a release or the next sweep (seconds of a burst lost per step).
      return { free, retryAt: undefined, growsAt: limits[0]?.retryAt };
    }
    const retryAt = full.some((limit) => limit.retryAt === undefined)
      ? undefined
      : Math.max(...full.map((limit) => limit.retryAt ?? 0));
    // The calls-at-once limit is pushed first; with a time to grow, it is a ramp's.
    const ramping = full.length === 1 && full[0] === limits[0] && retryAt !== undefined;
    return { free: 0, retryAt, ramping };
  }

  /**
   * A burst into a quiet pool with no limit on calls at once and none in the catalog (fresh, or
   * its ramp or forgetting ended) starts a ramp: it finds an upstream's limit with a few refusals, not one per task.
   * Asked once per transaction; answers the row as it now is.
   */
  async function rampIfQuiet(trx: Db, row: UpstreamPoolsTable, pool: CapacityPool, now: number) {
    // A route with limits set in the catalog is the operator's word: it is not probed.
    if (hasConfiguredLimit(pool.limits) || Number.isFinite(limitOf(row, pool.limits, now).limit)) return row;
    if (await reads.busySince(trx, pool.id, now - rules.idleMs)) return row;
    const ramp = rampStart(rules, row, now);
    await trx.updateTable('upstream_pools').set(ramp).where('pool', '=', pool.id).execute();
    return { ...row, ...ramp };
  }

  return { limitOf, room, rampIfQuiet };
}

/** The room and ramp of a pool, as the slot decisions read them. */
export type PoolRoom = ReturnType<typeof createPoolRoom>;
