import { sql } from 'kysely';
import type { Clock } from '../../../base/runtime/clock.js';
import type { Db } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import { callBackInTurns } from './call-back-turns.js';
import { type CapacityPool, hasConfiguredLimit, pollsOf } from './capacity-pool.js';
import { createCapacityReads, UNFINISHED } from './capacity-reads.js';
import { callBackIn, hasWaiters, type PoolWork } from './pool-call-back.js';
import { learningRules } from './pool-learning.js';
import { createPoolRoom } from './pool-room.js';
import { readPoolSnapshots } from './pool-snapshots.js';
import { readPoolStates } from './pool-states.js';
import type { CallBack, CallResult, CallTeaching, SlotAnswer } from './slot-answers.js';
import { acquireDecision, releaseDecision } from './slot-decisions.js';
import { slotStatements } from './slot-statements.js';
import { slotTurns } from './slot-turns.js';

export type { PoolSnapshot } from './pool-snapshots.js';
export type { CallBack, CallResult, CallTeaching, SlotAnswer } from './slot-answers.js';

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
 * PostgreSQL (SQLite has one writer); the decisions themselves are in slot-decisions.ts.
 */
export class UpstreamCapacity {
  readonly windowMs: number;
  /** Every pool's learned limit, calls in flight and parked tasks (for the gauges; handed out alone). */
  readonly snapshot: () => ReturnType<typeof readPoolSnapshots>;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly defaultHoldMs: number;
  /** The window the pools count calls over: a little longer than the upstream's (see the constructor). */
  readonly windowSpan: number;
  /** How the pools learn (the rules every decision reads; the queue view explains holds with them). */
  readonly rules: ReturnType<typeof learningRules>;
  private readonly work: PoolWork;
  /**
   * A slot's acquire and release: on a pool with no limit set in the catalog, the decisions asked in
   * one turn share one transaction (slot-turns.ts); with one, each decides at once.
   */
  private readonly decideSlot: ReturnType<typeof slotTurns>;

  constructor({ db, clock, windowMs = 60_000, defaultHoldMs = 1000 }: UpstreamCapacityOptions) {
    this.db = db;
    this.clock = clock;
    this.windowMs = windowMs;
    this.defaultHoldMs = defaultHoldMs;
    // A call is counted from its slot, a moment before the upstream sees it: the window is kept a
    // little longer than the upstream's so that it has surely freed when the next call arrives.
    this.windowSpan = windowMs + Math.max(250, Math.round(windowMs / 40));
    const rules = learningRules(windowMs, defaultHoldMs);
    this.rules = rules;
    const reads = createCapacityReads(db, this.windowSpan);
    const poolRoom = createPoolRoom({ rules, reads, windowSpan: this.windowSpan });
    this.work = { clock, rules, reads, poolRoom, statements: slotStatements(db) };
    this.decideSlot = slotTurns(db, (trx, pool) => this.lockPool(trx, pool));
    this.snapshot = () => readPoolSnapshots(db);
  }

  /**
   * The pool's row, locked for the caller's transaction (on PostgreSQL), made first if new: read
   * first, since a pool's row exists from its first call on (an insert before every read cost each
   * slot decision one statement more, a round trip on PostgreSQL). Two first calls at once both
   * find nothing; the insert ignores the second, and the read after it locks the one row.
   */
  private async lockPool(trx: Db, pool: CapacityPool): Promise<UpstreamPoolsTable> {
    const { insertPool, selectPool } = this.work.statements;
    const [found] = (await trx.executeQuery(selectPool(pool.id))).rows;
    if (found) return found;
    await trx.executeQuery(
      insertPool(pool.id, pool.provider, pool.upstreamModel, pool.keyHash, this.clock.now()),
    );
    const [row] = (await trx.executeQuery(selectPool(pool.id))).rows;
    if (!row) throw new Error(`upstream pool ${pool.id} is missing after its insert`);
    return row;
  }

  /** Every pool's state for the operator console (learned limit, in flight, waiting, refused, hold). */
  states() {
    return readPoolStates(this.db, this.clock.now(), this.windowSpan);
  }

  /**
   * A slot for one call of `taskId`, made by the worker `owner` (which holds the task's lease).
   * A task that is not already waiting (`waiter` false) joins the queue behind parked tasks
   * instead of taking a slot ahead of them.
   */
  acquire(pool: CapacityPool, taskId: string, owner: string, waiter: boolean): Promise<SlotAnswer> {
    const decision = acquireDecision(this.work, pool, taskId, owner, waiter);
    return this.decideSlot(pool, decision, hasConfiguredLimit(pool.limits));
  }

  /**
   * Ends a call's slot, learns from how it ended (a refusal lowers the limit and holds the pool),
   * and calls back the parked tasks the freed room allows, in one transaction.
   */
  release(
    pool: CapacityPool,
    callId: string,
    result: CallResult,
    retryAfterMs?: number,
    taught: CallTeaching = {},
  ): Promise<CallBack> {
    const decision = releaseDecision(this.work, pool, callId, { result, retryAfterMs, taught });
    return this.decideSlot(pool, decision, hasConfiguredLimit(pool.limits));
  }

  /**
   * Holds the whole pool for `holdMs` (a Retry-After answered to an async job's poll), as a
   * refused submit does — no call starts on it, on any worker, until then — and holds its polls
   * too (a row of its own, `<pool>#polls`: a refused submit holds submits only). The learned limit
   * stays (the refusal says nothing of calls at once). Answers the hold's end.
   */
  hold(pool: CapacityPool, holdMs: number | undefined): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const now = this.clock.now();
      let holdUntil = now + (holdMs ?? this.defaultHoldMs);
      for (const held of [pool, pollsOf(pool)]) {
        const row = await this.lockPool(trx, held);
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
  }

  /** When a hold on the pool's polls ends (undefined when none is in force), as every worker sees it. */
  async heldUntil(pool: CapacityPool): Promise<number | undefined> {
    const [row] = (await this.db.executeQuery(this.work.statements.selectHold(pollsOf(pool).id))).rows;
    const until = Number(row?.hold_until ?? 0);
    return until > this.clock.now() ? until : undefined;
  }

  /**
   * Calls back as many parked tasks as the pool has room for now (a hold's end, a sweep).
   * Answers how many, and when room returns if the pool is full (a hold, a full window).
   */
  callBackWaiting(pool: CapacityPool): Promise<CallBack> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.lockPool(trx, pool);
      await this.work.reads.endDeadCalls(trx, pool.id, this.clock.now());
      return callBackIn(this.work, trx, row, pool);
    });
  }

  /**
   * Lends room to spare on a sibling's pool (another key of the provider): calls back up to
   * `count` tasks parked on `pool`, in fair turns, less those already called back and on their way.
   * Each called-back task asks its keys for a slot again, and takes the one with room. Its own
   * transaction on `pool`'s row (never two pools locked at once: no lock order to get wrong).
   */
  lend(pool: CapacityPool, count: number): Promise<number> {
    const { reads } = this.work;
    return this.db.transaction().execute(async (trx) => {
      await this.lockPool(trx, pool);
      const now = this.clock.now();
      if (!(await hasWaiters(reads, trx, pool.id, now))) return 0;
      return callBackInTurns(trx, pool.id, count - (await reads.calledBack(trx, pool.id, now)), now);
    });
  }

  /** The pools that have parked tasks, with their stored identity (for the periodic call-back). */
  poolsWithWaiters(): Promise<
    Array<Pick<UpstreamPoolsTable, 'pool' | 'provider' | 'upstream_model' | 'key_hash' | 'retry_at'>>
  > {
    const now = this.clock.now();
    return this.db
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
  }
}

export function createUpstreamCapacity(options: UpstreamCapacityOptions): UpstreamCapacity {
  return new UpstreamCapacity(options);
}
