import { randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../../base/runtime/clock.js';
import { compiledOnce } from '../../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../../infra/store/database.js';
import type { Database, UpstreamPoolsTable } from '../../../infra/store/schema.js';
import type { RequestQuota } from '../../providers/provider.js';
import { callBackInTurns } from './call-back-turns.js';
import { type CapacityPool, hasConfiguredLimit, pollsOf, siblingPools } from './capacity-pool.js';
import { createCapacityReads, UNFINISHED } from './capacity-reads.js';
import {
  afterQuota,
  afterRefusal,
  afterSuccess,
  holdsLimit,
  type LearningState,
  learningRules,
  refusalKind,
} from './pool-learning.js';
import { createPoolRoom } from './pool-room.js';
import { readPoolSnapshots } from './pool-snapshots.js';
import { readPoolStates } from './pool-states.js';
import { type SlotTurn, slotTurns } from './slot-turns.js';

export type { PoolSnapshot } from './pool-snapshots.js';

/** The answer to a request for a slot. */
export type SlotAnswer =
  /** `retryAt`: this grant filled a ramp that grows then (parked tasks are to be called back). */
  | { kind: 'granted'; callId: string; retryAt?: number | undefined }
  /**
   * No slot now: `retryAt` when capacity returns at a known time (hold, window), else at a release;
   * `ramping` when only a climbing ramp is full (it grows at `retryAt`, a step away).
   */
  | { kind: 'wait'; retryAt: number | undefined; ramping?: boolean };

/** Parked tasks called back, and when room returns if the pool is full. */
export interface CallBack {
  called: number;
  retryAt: number | undefined;
  /** Room left once the pool's own tasks were called back, when tasks wait on its siblings' pools. */
  spare: number;
}

/** How an upstream call ended, for the pool's learning. */
export type CallResult = 'ok' | 'refused' | 'neutral';

/** What else the answer said: a refusal marked as a limit on time, the key's request budget. */
export interface CallTeaching {
  timeLimit?: boolean | undefined;
  quota?: RequestQuota | undefined;
}

export interface UpstreamCapacityOptions {
  db: Db;
  clock: Clock;
  /** The per-minute window (60 s; tests shorten it together with their upstream's). */
  windowMs?: number;
  /** Hold after a refusal that named no Retry-After. */
  defaultHoldMs?: number;
}

export { successesPerIncrease } from './pool-learning.js';

/**
 * A task's later step asks this before each upstream call: is there a slot on its pool? Capacity
 * lives in the database, so every worker on it shares one count — calls in flight (a call's slot
 * lives while its worker holds the task's lease, so a killed worker's slots come back when its
 * leases expire), calls started in the last window, a hold set by a `Retry-After`, the request
 * budget the upstream's headers reported, and a limit on calls at once learned from refusals (the
 * rules of pool-learning.ts). Each decision runs in a transaction that locks the pool's row on
 * PostgreSQL (SQLite has one writer).
 */
export function createUpstreamCapacity({
  db,
  clock,
  windowMs = 60_000,
  defaultHoldMs = 1000,
}: UpstreamCapacityOptions) {
  const postgres = dialectOf(db) === 'postgres';
  const inTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
    db.transaction().execute(work);
  // A call is counted from its slot, a moment before the upstream sees it: the window is kept a
  // little longer than the upstream's so that it has surely freed when the next call arrives.
  const windowSpan = windowMs + Math.max(250, Math.round(windowMs / 40));
  const rules = learningRules(windowMs, defaultHoldMs);
  const reads = createCapacityReads(db, windowSpan);
  const { endDeadCalls, forgetOldCalls, inFlight, waiters, anyWaiting, calledBack } = reads;
  // The writes of every slot (an acquire, a release): built and compiled once, not per upstream call.
  const insertPool = compiledOnce(
    5,
    (pool: string, provider: string, upstreamModel: string, keyHash: string, now: number) =>
      db
        .insertInto('upstream_pools')
        .values({
          pool,
          provider,
          upstream_model: upstreamModel,
          key_hash: keyHash,
          learned_limit: null,
          successes: 0,
          burst_floor: 1,
          hold_until: 0,
          retry_at: 0,
          updated_at: now,
          refused_at: 0,
          ramp_since: 0,
          ramp_base: 0,
          quota_limit: null,
          quota_remaining: null,
          quota_reset_at: 0,
          quota_seen_at: 0,
        })
        .onConflict((oc) => oc.column('pool').doNothing()),
  );
  const selectPool = compiledOnce(1, (pool: string) => {
    const query = db.selectFrom('upstream_pools').selectAll().where('pool', '=', pool);
    return postgres ? query.forUpdate() : query;
  });
  const insertCall = compiledOnce(5, (id: string, pool: string, taskId: string, owner: string, now: number) =>
    db
      .insertInto('upstream_calls')
      .values({ id, pool, task_id: taskId, owner, started_at: now, ended_at: null, refused: 0 }),
  );
  const endCall = compiledOnce(3, (id: string, now: number, refused: number) =>
    db.updateTable('upstream_calls').set({ ended_at: now, refused }).where('id', '=', id),
  );
  // Read before each poll of an async job: are its polls held by a poll's Retry-After?
  const selectHold = compiledOnce(1, (pool: string) =>
    db.selectFrom('upstream_pools').select('hold_until').where('pool', '=', pool),
  );

  async function lockPool(trx: Db, pool: CapacityPool): Promise<UpstreamPoolsTable> {
    const now = clock.now();
    await trx.executeQuery(insertPool(pool.id, pool.provider, pool.upstreamModel, pool.keyHash, now));
    const [row] = (await trx.executeQuery(selectPool(pool.id))).rows;
    if (!row) throw new Error(`upstream pool ${pool.id} is missing after its insert`);
    return row;
  }
  // A slot's acquire and release: on a pool with no limit set in the catalog, the decisions asked in
  // one turn share one transaction (slot-turns.ts); with one, each decides at once.
  const decideSlot = slotTurns(db, lockPool);

  const { room, rampIfQuiet } = createPoolRoom({ rules, reads, windowSpan });

  /**
   * What a call's end teaches the pool (pool-learning.ts): the request budget its answer reported,
   * a success's count toward one more call at once, a refusal's hold (on time) or lower limit
   * (calls at once, counted without the calls of dead workers).
   */
  async function learn(
    trx: Db,
    row: UpstreamPoolsTable,
    pool: CapacityPool,
    result: CallResult,
    retryAfterMs: number | undefined,
    taught: CallTeaching,
    now: number,
  ): Promise<Partial<UpstreamPoolsTable> | undefined> {
    const quota = taught.quota || result === 'ok' ? afterQuota(row, taught.quota, now) : undefined;
    let learned: Partial<LearningState> | undefined;
    if (result === 'ok') learned = afterSuccess(row, pool.limits.maxInFlight);
    else if (result === 'refused') {
      // A slot's acquire on an unbounded pool leaves the calls of dead workers: end them first.
      await endDeadCalls(trx, pool.id, now);
      const others = await inFlight(trx, pool.id);
      learned = afterRefusal(rules, row, now, {
        kind: refusalKind(taught.timeLimit, others),
        others,
        retryAfterMs,
        configured: pool.limits.maxInFlight !== undefined,
      });
    }
    if (!quota && !learned) return undefined;
    const holdUntil = Math.max(Number(row.hold_until), Number(learned?.hold_until ?? 0));
    return { ...quota, ...learned, retry_at: Math.max(Number(row.retry_at), holdUntil), updated_at: now };
  }

  /** Moves the pool's next look (`retry_at`) later when `retryAt` is later than the one kept. */
  async function postponeRetry(
    trx: Db,
    row: UpstreamPoolsTable,
    pool: CapacityPool,
    retryAt: number | undefined,
  ): Promise<void> {
    if (retryAt === undefined || retryAt <= row.retry_at) return;
    await trx.updateTable('upstream_pools').set({ retry_at: retryAt }).where('pool', '=', pool.id).execute();
  }

  /** Whether tasks are parked on the pool (read once per transaction while there are none). */
  async function hasWaiters(trx: Db, poolId: string, now: number, turn?: SlotTurn): Promise<boolean> {
    if (turn?.noWaiters) return false;
    const some = (await waiters(trx, poolId, now)) > 0;
    if (turn && !some) turn.noWaiters = true;
    return some;
  }

  /** Whether tasks are parked on the pool's siblings (read once per transaction while there are none). */
  async function siblingsWait(trx: Db, pool: CapacityPool, now: number, turn?: SlotTurn): Promise<boolean> {
    if (!pool.siblings?.length || turn?.noSiblingWaiters) return false;
    const some = await anyWaiting(
      trx,
      siblingPools(pool).map((sibling) => sibling.id),
      now,
    );
    if (turn && !some) turn.noSiblingWaiters = true;
    return some;
  }

  /**
   * Calls back waiting tasks within the caller's transaction (the pool's row locked), and answers
   * the room left to spare when tasks wait on the pool's siblings (the caller lends it to them).
   */
  async function callBackIn(
    trx: Db,
    row: UpstreamPoolsTable,
    pool: CapacityPool,
    turn?: SlotTurn,
  ): Promise<CallBack> {
    const now = clock.now();
    const own = await hasWaiters(trx, pool.id, now, turn);
    const lending = await siblingsWait(trx, pool, now, turn);
    if (!own && !lending) return { called: 0, retryAt: undefined, spare: 0 };
    const { free, retryAt, growsAt } = await room(trx, row, pool, now);
    // A climbing ramp is looked at again when it grows: its parked tasks are not called back by a release.
    const next = retryAt ?? growsAt;
    await postponeRetry(trx, row, pool, next);
    const left = free - (await calledBack(trx, pool.id, now));
    const called = own ? await callBackInTurns(trx, pool.id, left, now) : 0;
    return { called, retryAt: next, spare: lending ? Math.max(0, left - called) : 0 };
  }

  return {
    windowMs,
    /** Every pool's state for the operator console (learned limit, in flight, waiting, refused, hold). */
    states: () => readPoolStates(db, clock.now(), windowSpan),

    /**
     * A slot for one call of `taskId`, made by the worker `owner` (which holds the task's lease).
     * A task that is not already waiting (`waiter` false) joins the queue behind parked tasks
     * instead of taking a slot ahead of them.
     */
    async acquire(pool: CapacityPool, taskId: string, owner: string, waiter: boolean): Promise<SlotAnswer> {
      return decideSlot<SlotAnswer>(
        pool,
        async (trx, locked, turn) => {
          let row = locked;
          // Read after the lock: a transaction that queued for it must not count from before.
          const now = clock.now();
          // Dead workers' calls hold slots only on a pool with a limit on calls at once (not a ramp,
          // which they only help to climb); elsewhere
          // ending them (a look at every call in flight: quadratic in a burst of a thousand slots)
          // waits for a refusal's count or a call-back, and only the calls past the window go.
          if (!turn.forgotten) row = await rampIfQuiet(trx, row, pool, now);
          if (pool.limits.maxInFlight !== undefined || holdsLimit(rules, row, now))
            await endDeadCalls(trx, pool.id, now);
          else if (!turn.forgotten) await forgetOldCalls(trx, pool.id, now);
          turn.forgotten = true;
          // A ramp found full earlier in this turn is full still (only a release frees room).
          if (turn.rampFull) return { answer: turn.rampFull, row };
          const { free, retryAt, growsAt, ramping } = await room(trx, row, pool, now);
          if (free < 1) {
            await postponeRetry(trx, row, pool, retryAt);
            const retry_at = Math.max(row.retry_at, retryAt ?? 0);
            const answer: SlotAnswer = { kind: 'wait', retryAt, ...(ramping ? { ramping } : {}) };
            if (ramping) turn.rampFull = answer;
            return { answer, row: { ...row, retry_at } };
          }
          if (!waiter && (await hasWaiters(trx, pool.id, now, turn)))
            return { answer: { kind: 'wait', retryAt: undefined }, row };
          const callId = `call_${randomBytes(12).toString('base64url')}`;
          await trx.executeQuery(insertCall(callId, pool.id, taskId, owner, now));
          if (growsAt === undefined) return { answer: { kind: 'granted', callId }, row };
          await postponeRetry(trx, row, pool, growsAt);
          const retry_at = Math.max(row.retry_at, growsAt);
          return { answer: { kind: 'granted', callId, retryAt: growsAt }, row: { ...row, retry_at } };
        },
        hasConfiguredLimit(pool.limits),
      );
    },

    /**
     * Ends a call's slot, learns from how it ended (a refusal lowers the limit and holds the pool),
     * and calls back the parked tasks the freed room allows, in one transaction.
     */
    async release(
      pool: CapacityPool,
      callId: string,
      result: CallResult,
      retryAfterMs?: number,
      taught: CallTeaching = {},
    ): Promise<CallBack> {
      return decideSlot<CallBack>(
        pool,
        async (trx, row, turn) => {
          // Read after the lock: a transaction that queued for it must not count from before.
          const now = clock.now();
          turn.rampFull = undefined;
          await trx.executeQuery(endCall(callId, now, result === 'refused' ? 1 : 0));
          const learned = await learn(trx, row, pool, result, retryAfterMs, taught, now);
          if (learned)
            await trx.updateTable('upstream_pools').set(learned).where('pool', '=', pool.id).execute();
          const next = { ...row, ...learned };
          return { answer: await callBackIn(trx, next, pool, turn), row: next };
        },
        hasConfiguredLimit(pool.limits),
      );
    },

    /**
     * Holds the whole pool for `holdMs` (a Retry-After answered to an async job's poll), as a
     * refused submit does — no call starts on it, on any worker, until then — and holds its polls
     * too (a row of its own, `<pool>#polls`: a refused submit holds submits only). The learned limit
     * stays (the refusal says nothing of calls at once). Answers the hold's end.
     */
    async hold(pool: CapacityPool, holdMs: number | undefined): Promise<number> {
      return inTransaction(async (trx) => {
        const now = clock.now();
        let holdUntil = now + (holdMs ?? defaultHoldMs);
        for (const held of [pool, pollsOf(pool)]) {
          const row = await lockPool(trx, held);
          holdUntil = Math.max(holdUntil, Number(row.hold_until));
          await trx
            .updateTable('upstream_pools')
            .set({
              hold_until: holdUntil,
              retry_at: Math.max(Number(row.retry_at), holdUntil),
              updated_at: now,
            })
            .where('pool', '=', held.id)
            .execute();
        }
        return holdUntil;
      });
    },

    /** When a hold on the pool's polls ends (undefined when none is in force), as every worker sees it. */
    async heldUntil(pool: CapacityPool): Promise<number | undefined> {
      const [row] = (await db.executeQuery(selectHold(pollsOf(pool).id))).rows;
      const until = Number(row?.hold_until ?? 0);
      return until > clock.now() ? until : undefined;
    },

    /**
     * Calls back as many parked tasks as the pool has room for now (a hold's end, a sweep).
     * Answers how many, and when room returns if the pool is full (a hold, a full window).
     */
    callBackWaiting(pool: CapacityPool): Promise<CallBack> {
      return inTransaction(async (trx) => {
        const row = await lockPool(trx, pool);
        await endDeadCalls(trx, pool.id, clock.now());
        return callBackIn(trx, row, pool);
      });
    },

    /**
     * Lends room to spare on a sibling's pool (another key of the provider): calls back up to
     * `count` tasks parked on `pool`, in fair turns, less those already called back and on their way.
     * Each called-back task asks its keys for a slot again, and takes the one with room. Its own
     * transaction on `pool`'s row (never two pools locked at once: no lock order to get wrong).
     */
    lend(pool: CapacityPool, count: number): Promise<number> {
      return inTransaction(async (trx) => {
        await lockPool(trx, pool);
        const now = clock.now();
        if (!(await hasWaiters(trx, pool.id, now))) return 0;
        return callBackInTurns(trx, pool.id, count - (await calledBack(trx, pool.id, now)), now);
      });
    },

    /** The pools that have parked tasks, with their stored identity (for the periodic call-back). */
    async poolsWithWaiters(): Promise<
      Array<Pick<UpstreamPoolsTable, 'pool' | 'provider' | 'upstream_model' | 'key_hash' | 'retry_at'>>
    > {
      const now = clock.now();
      return db
        .selectFrom('upstream_pools as p')
        .select(['p.pool', 'p.provider', 'p.upstream_model', 'p.key_hash', 'p.retry_at'])
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('tasks as t')
              .select(sql.lit(1).as('one'))
              .whereRef('t.capacity_pool', '=', 'p.pool')
              .where(UNFINISHED)
              .where('t.next_run_at', '>', now),
          ),
        )
        .execute();
    },

    /** Every pool's learned limit, calls in flight and parked tasks (for the gauges). */
    snapshot: () => readPoolSnapshots(db),
  };
}

export type UpstreamCapacity = ReturnType<typeof createUpstreamCapacity>;
