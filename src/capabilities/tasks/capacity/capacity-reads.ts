import { sql } from 'kysely';
import { compiledOnce } from '../../../infra/store/compiled-once.js';
import type { Db } from '../../../infra/store/database.js';

/** A task that has not ended (its parked or running states). */
export const UNFINISHED = sql<boolean>`${sql.ref('t.status')} in ('queued', 'in_progress')`;

/**
 * The pool's counts, read inside the caller's transaction (the pool's row locked): calls in flight
 * and in the window (`windowSpan`, a little longer than the upstream's window), parked tasks, and
 * the slots of calls whose worker is gone.
 */
export class CapacityReads {
  // The reads of every slot (an acquire, a release) and of its rarer turns (a refusal, a ramp, a
  // call-back): built and compiled once, not per upstream call (Kysely's building and compiling was
  // about a third of a slot decision's CPU). `anyWaiting`'s list of pools varies: it is built per call.
  private readonly q;

  constructor(
    db: Db,
    /** A little longer than the upstream's window (upstream-capacity.ts says why). */
    private readonly windowSpan: number,
  ) {
    const calls = (poolId: string) => db.selectFrom('upstream_calls').where('pool', '=', poolId);
    const parked = (poolId: string) =>
      db.selectFrom('tasks as t').where('t.capacity_pool', '=', poolId).where(UNFINISHED);
    const count = sql<number>`count(*)`.as('n');
    this.q = {
      oldCalls: compiledOnce(2, (poolId: string, before: number) =>
        db
          .deleteFrom('upstream_calls')
          .where('pool', '=', poolId)
          .where('ended_at', 'is not', null)
          .where('started_at', '<=', before),
      ),
      // A literal limit: SQLite runs a bound one several times slower on this index.
      waiting: compiledOnce(2, (poolId: string, now: number) =>
        parked(poolId).select('t.id').where('t.next_run_at', '>', now).limit(sql.lit(1)),
      ),
      deadCalls: compiledOnce(3, (now: number, poolId: string, alive: number) =>
        db
          .updateTable('upstream_calls')
          .set({ ended_at: now })
          .where('pool', '=', poolId)
          .where('ended_at', 'is', null)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('tasks as t')
                  .select(sql.lit(1).as('one'))
                  .whereRef('t.id', '=', 'upstream_calls.task_id')
                  .whereRef('t.lease_owner', '=', 'upstream_calls.owner')
                  .where('t.lease_expires_at', '>', alive)
                  .where(UNFINISHED),
              ),
            ),
          ),
      ),
      inFlight: compiledOnce(1, (poolId: string) =>
        calls(poolId).select(count).where('ended_at', 'is', null),
      ),
      windowUse: compiledOnce(2, (poolId: string, since: number) =>
        calls(poolId)
          .select([count, sql<number | null>`min(started_at)`.as('oldest')])
          .where('refused', '=', 0)
          .where('started_at', '>', since),
      ),
      calledBack: compiledOnce(2, (poolId: string, now: number) =>
        parked(poolId).select(count).where('t.next_run_at', '<=', now),
      ),
      startedSince: compiledOnce(2, (poolId: string, since: number) =>
        calls(poolId).select(count).where('refused', '=', 0).where('started_at', '>=', since),
      ),
      rampEvidence: compiledOnce(3, (provenBefore: number, later: number, poolId: string) =>
        calls(poolId)
          .select([
            count,
            sql<number>`sum(case when started_at <= ${provenBefore} then 1 else 0 end)`.as('proven'),
            sql<number | null>`min(case when started_at > ${later} then started_at end)`.as('young'),
          ])
          .where('ended_at', 'is', null),
      ),
      busySince: compiledOnce(2, (poolId: string, since: number) =>
        calls(poolId)
          .select('id')
          .where((eb) => eb.or([eb('ended_at', 'is', null), eb('started_at', '>', since)]))
          .limit(sql.lit(1)),
      ),
    };
  }

  /** Ends the slots of calls whose worker no longer holds the task (died, or the task ended). */
  async endDeadCalls(trx: Db, poolId: string, now: number): Promise<void> {
    await trx.executeQuery(this.q.deadCalls(now, poolId, now));
    await this.forgetOldCalls(trx, poolId, now);
  }

  /** Deletes ended calls that left the window (they count for nothing any more). */
  async forgetOldCalls(trx: Db, poolId: string, now: number): Promise<void> {
    await trx.executeQuery(this.q.oldCalls(poolId, now - this.windowSpan));
  }

  async inFlight(trx: Db, poolId: string): Promise<number> {
    const [row] = (await trx.executeQuery(this.q.inFlight(poolId))).rows;
    return Number(row?.n ?? 0);
  }

  /** Accepted calls started in the window, and the oldest one's start (when the window frees). */
  async windowUse(trx: Db, poolId: string, now: number) {
    const [row] = (await trx.executeQuery(this.q.windowUse(poolId, now - this.windowSpan))).rows;
    return { count: Number(row?.n ?? 0), oldest: row?.oldest == null ? now : Number(row.oldest) };
  }

  /** Whether a task is parked on the pool and not yet called back (due later than now). */
  async waiting(trx: Db, poolId: string, now: number): Promise<boolean> {
    return (await trx.executeQuery(this.q.waiting(poolId, now))).rows.length > 0;
  }

  /** Whether a task is parked on any of the pools `poolIds` and not yet called back. */
  async anyWaiting(trx: Db, poolIds: readonly string[], now: number): Promise<boolean> {
    if (poolIds.length === 0) return false;
    const row = await trx
      .selectFrom('tasks as t')
      .select('t.id')
      .where('t.capacity_pool', 'in', poolIds)
      .where(UNFINISHED)
      .where('t.next_run_at', '>', now)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Tasks called back from the pool but not yet at their slot (due now, still marked waiting). */
  async calledBack(trx: Db, poolId: string, now: number): Promise<number> {
    const [row] = (await trx.executeQuery(this.q.calledBack(poolId, now))).rows;
    return Number(row?.n ?? 0);
  }

  /** Calls started at or after `since` and not refused: what counts against a request budget read then. */
  async startedSince(trx: Db, poolId: string, since: number): Promise<number> {
    const [row] = (await trx.executeQuery(this.q.startedSince(poolId, since))).rows;
    return Number(row?.n ?? 0);
  }

  /** The calls in flight, those started by `provenBefore` (unrefused so far), the next young one's start. */
  async rampEvidence(trx: Db, poolId: string, provenBefore: number) {
    const [row] = (await trx.executeQuery(this.q.rampEvidence(provenBefore, provenBefore, poolId))).rows;
    return {
      inFlight: Number(row?.n ?? 0),
      proven: Number(row?.proven ?? 0),
      nextProof: row?.young == null ? undefined : Number(row.young),
    };
  }

  /** Whether the pool has a call in flight, or one started after `since` (it is not quiet). */
  async busySince(trx: Db, poolId: string, since: number): Promise<boolean> {
    return (await trx.executeQuery(this.q.busySince(poolId, since))).rows.length > 0;
  }
}

export function createCapacityReads(db: Db, windowSpan: number): CapacityReads {
  return new CapacityReads(db, windowSpan);
}
