import type { Logger } from 'pino';
import type { Clock } from '../../../base/runtime/clock.js';
import { routeIdOf } from '../../catalog/index.js';
import type { ImageProvider, ProviderFailure, SubmitOutcome } from '../../providers/index.js';
import { routeIdOfRow } from '../task-route.js';
import type { TaskRow } from '../tasks-repository.js';
import {
  type CapacityLimits,
  type CapacityPool,
  capacityPool,
  hasConfiguredLimit,
  keyHashOf,
  poolIdOf,
  siblingPools,
} from './capacity-pool.js';
import type { CallBack, CallResult, SlotAnswer, UpstreamCapacity } from './upstream-capacity.js';

/** What operators see of capacity (Prometheus), labelled by provider and key hash, never the key. */
export interface CapacityMetrics {
  callsRefused: { inc(labels: { provider: string; key: string }): void };
  secondsWaited: { observe(labels: { provider: string; key: string }, seconds: number): void };
}

export interface CapacityGateDeps {
  capacity: UpstreamCapacity;
  clock: Clock;
  logger: Logger;
  /** The lease owner of this engine: a slot lives while it holds the task's lease. */
  owner: string;
  /** The catalog's limits of an upstream route, by its id (empty when none are set). */
  limitsOf?(routeId: string): CapacityLimits;
  /** Parked tasks were called back: wake this worker and the others. */
  onCalledBack(): void;
  /** Room returns on a pool sooner than this node's loop knew: wake it (this node only). */
  onRetryKnown?(): void;
  metrics?: CapacityMetrics | undefined;
  /** The operator's limit on calls at once of a pooled key's pool (by its key part), if one is set. */
  keyLimitOf?(provider: string, keyHash: string): number | undefined;
  /** The key parts of the provider's other keys in service, when `keyHash` is one of its pool's. */
  siblingsOf?(provider: string, keyHash: string): string[];
}

/**
 * How often the loop looks for pools with room and parked tasks that no release or known hold
 * called back (a hold set by another node, slots of a dead worker, a call-back lost to a race):
 * every 2 s while there are parked tasks, every 30 s otherwise (an idle round then costs no query).
 */
export const BUSY_SWEEP_MS = 2000;
export const SWEEP_MS = 30_000;

/** True for a rate-limit answer that a wait fixes (not an exhausted balance, which fails at once). */
export const isRateLimit = (outcome: SubmitOutcome | ProviderFailure): boolean =>
  outcome.kind === 'failed' && outcome.cause === 'rate_limited' && outcome.retryable;

/**
 * The engine's side of upstream capacity: which pool a task's call draws on, a slot before each
 * upstream submit, its release (with what the answer taught), and the call-back of parked tasks
 * when room returns — at once after a release, and on each loop round for holds that ended and
 * slots of dead workers.
 */
export class CapacityGate {
  private readonly capacity: UpstreamCapacity;
  private readonly clock: Clock;
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** Whether the last sweep (or a park here) saw parked tasks: sweeps come often while there are. */
  private waitersSeen = false;
  /** When room returns on a pool this node knows waiters of (a hold's end, a window's refill). */
  private knownRetryAt: number | undefined;
  /** A pool's call-back under way on this node, and whether another was asked for meanwhile. */
  private readonly callingBack = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(private readonly deps: CapacityGateDeps) {
    this.capacity = deps.capacity;
    this.clock = deps.clock;
  }

  /**
   * The pool a task's calls draw on: every keyed upstream (its limits learned, or set in the
   * catalog), and a keyless one only when the catalog sets a limit for it.
   */
  poolOf(
    provider: ImageProvider,
    task: TaskRow,
    apiKey: string | null,
    /** A key of the deployment's pool: its pool's key part (its project's) and its own limit. */
    pooled?: { poolKey: string; maxInFlight: number | undefined },
  ): CapacityPool | undefined {
    const route = routeIdOfRow(task);
    const limits = this.deps.limitsOf?.(route) ?? {};
    if (!provider.requiresKey && !hasConfiguredLimit(limits)) return undefined;
    const pool = capacityPool(task.provider, task.upstream_model, apiKey, limits);
    if (!pooled) return pool;
    const maxInFlight = Math.min(
      limits.maxInFlight ?? Number.POSITIVE_INFINITY,
      pooled.maxInFlight ?? Number.POSITIVE_INFINITY,
    );
    return {
      ...pool,
      id: poolIdOf(route, pooled.poolKey),
      keyHash: pooled.poolKey,
      limits: { ...limits, maxInFlight: Number.isFinite(maxInFlight) ? maxInFlight : undefined },
      siblings: this.deps.siblingsOf?.(task.provider, pooled.poolKey),
    };
  }

  /** A slot for the task's next call; a task already parked on the pool keeps its turn. */
  async acquire(pool: CapacityPool, task: TaskRow): Promise<SlotAnswer> {
    const answer = await this.capacity.acquire(
      pool,
      task.id,
      this.deps.owner,
      task.capacity_pool === pool.id,
    );
    this.noteRetry(answer.retryAt);
    return answer;
  }

  /** Records how long a task waited, once it got its slot. */
  waited(task: TaskRow, pool: CapacityPool): void {
    if (task.waiting_since === null) return;
    this.deps.metrics?.secondsWaited.observe(
      { provider: pool.provider, key: pool.keyHash },
      Math.max(0, this.clock.now() - task.waiting_since) / 1000,
    );
  }

  /** Ends a call's slot, learns from its outcome, and calls back parked tasks if room returned. */
  async release(pool: CapacityPool, callId: string, outcome: SubmitOutcome | undefined): Promise<void> {
    let result: CallResult = 'neutral';
    if (outcome && isRateLimit(outcome)) {
      result = 'refused';
      this.deps.metrics?.callsRefused.inc({ provider: pool.provider, key: pool.keyHash });
    } else if (outcome && outcome.kind !== 'failed') result = 'ok';
    const retryAfterMs = outcome?.kind === 'failed' ? outcome.retryAfterMs : undefined;
    // What the answer said of the upstream's limits: a refusal on time, the key's request budget.
    const taught =
      outcome?.kind === 'failed'
        ? { timeLimit: outcome.timeLimit, quota: outcome.quota }
        : { quota: outcome?.quota };
    try {
      await this.calledBack(pool, await this.capacity.release(pool, callId, result, retryAfterMs, taught));
      if (retryAfterMs !== undefined) this.noteRetry(this.clock.now() + retryAfterMs);
    } catch (error) {
      // The slot ends anyway when this worker lets go of the task's lease.
      this.deps.logger.warn({ err: error, pool: pool.id }, 'could not release an upstream slot');
    }
  }

  /**
   * A rate limit answered to a call that took no slot (an async job's poll): the whole pool is
   * held for its Retry-After, in the store, so submits and polls on it wait on every worker.
   * Answers the hold's end.
   */
  async hold(pool: CapacityPool, retryAfterMs: number | undefined): Promise<number> {
    this.deps.metrics?.callsRefused.inc({ provider: pool.provider, key: pool.keyHash });
    const until = await this.capacity.hold(pool, retryAfterMs);
    this.noteRetry(until);
    return until;
  }

  /** When a hold on the pool ends, if one is in force (set by any worker). */
  heldUntil(pool: CapacityPool): Promise<number | undefined> {
    return this.capacity.heldUntil(pool);
  }

  /** After a task parked: room may already be free (it joined behind others), so call back now. */
  afterPark(pool: CapacityPool): Promise<void> {
    this.waitersSeen = true;
    return this.callBackOnce(pool);
  }

  /**
   * Calls back parked tasks on every pool that has room now: when a hold this node knows of ends,
   * and every `SWEEP_MS` (holds set by other nodes, slots of dead workers, which free when their
   * leases expire). Between sweeps an idle round costs no query.
   */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const due = this.knownRetryAt !== undefined && now >= this.knownRetryAt;
    if (!due && now < this.lastSweep + (this.waitersSeen ? BUSY_SWEEP_MS : SWEEP_MS)) return;
    this.lastSweep = now;
    this.knownRetryAt = undefined;
    const pools = await this.capacity.poolsWithWaiters();
    this.waitersSeen = pools.length > 0;
    // Each pool with parked tasks, then its siblings without any (their room is lent to them).
    const seen = new Set(pools.map((row) => row.pool));
    const siblings: CapacityPool[] = [];
    for (const row of pools) {
      this.noteRetry(row.retry_at);
      const pool = this.storedPool(row.provider, row.upstream_model, row.key_hash);
      await this.callBack(pool);
      for (const sibling of siblingPools(pool)) {
        if (seen.has(sibling.id)) continue;
        seen.add(sibling.id);
        siblings.push(this.storedPool(sibling.provider, sibling.upstreamModel, sibling.keyHash));
      }
    }
    for (const sibling of siblings) await this.callBack(sibling);
  }

  /** When this node should sweep next (a known hold's end), for the loop's sleep. */
  nextRetryAt(): number | undefined {
    return this.knownRetryAt;
  }

  private noteRetry(at: number | undefined): void {
    const known = this.knownRetryAt;
    if (at === undefined || at <= this.clock.now() || (known !== undefined && known <= at)) return;
    this.knownRetryAt = at;
    // The loop may be asleep past it: let it count its sleep again.
    this.deps.onRetryKnown?.();
  }

  /** Lends a pool's room to spare to the tasks parked on its siblings' pools, one sibling after another. */
  private async lend(pool: CapacityPool, spare: number): Promise<void> {
    let left = spare;
    for (const sibling of siblingPools(pool)) {
      if (left < 1) return;
      const called = await this.capacity.lend(sibling, left);
      left -= called;
      if (called > 0) this.deps.onCalledBack();
    }
  }

  private async calledBack(pool: CapacityPool, { called, retryAt, spare }: CallBack): Promise<void> {
    this.noteRetry(retryAt);
    if (called > 0) this.deps.onCalledBack();
    if (spare >= 1) await this.lend(pool, spare);
  }

  private async callBack(pool: CapacityPool): Promise<void> {
    await this.calledBack(pool, await this.capacity.callBackWaiting(pool));
  }

  /**
   * A call-back of the pool after a park: one at a time per pool on this node, the parks made while
   * one runs answered by one more after it (a burst that parks a thousand tasks at once made a
   * thousand call-back transactions; each after the first found what the one before had).
   */
  private callBackOnce(pool: CapacityPool): Promise<void> {
    const running = this.callingBack.get(pool.id);
    if (running) {
      running.again = true;
      return running.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          await this.callBack(pool);
        } while (entry.again);
      } finally {
        this.callingBack.delete(pool.id);
      }
    })();
    this.callingBack.set(pool.id, entry);
    return entry.done;
  }

  /** A pool with its limits (the catalog's, its key's) and its siblings, from its stored identity. */
  private storedPool(provider: string, upstreamModel: string, keyHash: string): CapacityPool {
    const route = routeIdOf({ provider, upstreamModel });
    const limits = { ...(this.deps.limitsOf?.(route) ?? {}) };
    const keyLimit = this.deps.keyLimitOf?.(provider, keyHash);
    if (keyLimit !== undefined) limits.maxInFlight = Math.min(limits.maxInFlight ?? keyLimit, keyLimit);
    return {
      id: poolIdOf(route, keyHash),
      provider,
      upstreamModel,
      keyHash,
      limits,
      siblings: this.deps.siblingsOf?.(provider, keyHash),
    };
  }
}

export function createCapacityGate(deps: CapacityGateDeps): CapacityGate {
  return new CapacityGate(deps);
}

export { keyHashOf };
