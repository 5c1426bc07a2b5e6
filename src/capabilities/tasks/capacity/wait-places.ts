import { sql } from 'kysely';
import type { Clock } from '../../../base/runtime/clock.js';
import { type Db, dialectOf } from '../../../infra/store/database.js';
import { routeIdOfRow } from '../task-route.js';
import type { CapacityLimits } from './capacity-pool.js';
import { configuredPerMinute } from './capacity-pool.js';

/** Where a parked task stands (extra record fields, set only while `waiting_for` is). */
export interface WaitPlace {
  /** 1-based place among the account's own parked tasks on the same pool, in call-back order. */
  queue_position: number;
  /** When the task should get its slot (ISO-8601 UTC, rounded up to 5 s); absent when unknown. */
  estimated_start_at?: string;
}

/** Estimates are rounded up to this step, so a steady queue reads the same on every poll. */
export const ESTIMATE_STEP_MS = 5000;

export interface WaitPlacesOptions {
  db: Db;
  clock: Clock;
  /** The capacity window (the pool's per-minute window; 60 s). */
  windowMs: number;
  /** The catalog's limits of an upstream route, by its id (as the engine's gate has them). */
  limitsOf?: ((routeId: string) => CapacityLimits) | undefined;
}

interface PlaceRow {
  id: string;
  pool: string;
  position: number | string;
  called: number | string;
}

interface PoolRow {
  pool: string;
  provider: string;
  upstream_model: string;
  learned_limit: number | null;
  hold_until: number | string;
  in_flight: number | string;
  recent: number | string;
  /** The other accounts' parked tasks on the pool, as a comma-separated list of counts. */
  others: string | null;
}

/**
 * The places and start estimates of an account's parked tasks, for the records of its reads (one
 * task, a batch, a long-poll, the event stream's first look, the website's cards): two queries per
 * call, whatever the number of tasks.
 *
 * The place is the order `callBack` serves the account's own tasks on a pool: tasks already called
 * back first, then created_at, idx, id. Other accounts' tasks never enter it (fair turns interleave
 * them, but a place never reveals their number).
 *
 * The estimate: tasks ahead in fair turns = (place − 1) + Σ over other accounts min(their parked
 * tasks, place) (one task per account per turn; the calls accounts already have on the pool are
 * left out). The first `free` of them start when the hold ends (`hold_until`, or now) where `free`
 * is the pool's concurrency (learned limit or catalog's `maxInFlight`, less the calls in flight;
 * unbounded when neither is known); the rest at the pool's pace: the window divided by the calls
 * started (and not refused) in the last window, or by the catalog's per-minute limit when there
 * were none. No pace and a task beyond the first slots: no estimate. It does not foresee new
 * refusals, a learned limit that changes, calls that take longer than before, or tasks submitted
 * later by accounts with fewer calls (they may take turns ahead).
 */
export function createWaitPlaces({ db, clock, windowMs, limitsOf }: WaitPlacesOptions) {
  // The other accounts' counts of a grouped sub-select, as one comma-separated text.
  const othersList =
    dialectOf(db) === 'postgres' ? sql`string_agg(cast(n as text), ',')` : sql`group_concat(n, ',')`;
  return async function placesOf(
    accountId: string,
    taskIds: readonly string[],
  ): Promise<Map<string, WaitPlace>> {
    const places = new Map<string, WaitPlace>();
    if (taskIds.length === 0) return places;
    const now = clock.now();
    const ids = [...new Set(taskIds)];
    const { rows } = await sql<PlaceRow>`
      select id, pool, position, called from (
        select t.id, t.capacity_pool as pool,
          case when t.next_run_at <= ${now} then 1 else 0 end as called,
          row_number() over (
            partition by t.capacity_pool
            order by case when t.next_run_at <= ${now} then 0 else 1 end, t.created_at, t.idx, t.id
          ) as position
        from tasks t
        where t.account_id = ${accountId} and t.status in ('queued', 'in_progress')
          and t.capacity_pool is not null
      ) mine
      where id in (${sql.join(ids)})`.execute(db);
    if (rows.length === 0) return places;
    const pools = [...new Set(rows.map((row) => row.pool))];
    const facts = await sql<PoolRow>`
      select p.pool, p.provider, p.upstream_model, p.learned_limit, p.hold_until,
        (select count(*) from upstream_calls c where c.pool = p.pool and c.ended_at is null) as in_flight,
        (select count(*) from upstream_calls c
          where c.pool = p.pool and c.started_at >= ${now - windowMs} and c.refused = 0) as recent,
        (select ${othersList} from (
          select count(*) as n from tasks t
          where t.capacity_pool = p.pool and t.account_id <> ${accountId}
            and t.status in ('queued', 'in_progress')
          group by t.account_id
        ) o) as others
      from upstream_pools p where p.pool in (${sql.join(pools)})`.execute(db);
    const byPool = new Map(facts.rows.map((row) => [row.pool, row]));
    for (const row of rows) {
      const position = Number(row.position);
      const pool = byPool.get(row.pool);
      const at = pool && startEstimate(pool, position, Number(row.called) === 1, now);
      places.set(
        row.id,
        at === undefined
          ? { queue_position: position }
          : { queue_position: position, estimated_start_at: at },
      );
    }
    return places;
  };

  /** The estimate of one task (see above), rounded up to `ESTIMATE_STEP_MS`; undefined when unknown. */
  function startEstimate(pool: PoolRow, position: number, called: boolean, now: number): string | undefined {
    const base = Math.max(now, Number(pool.hold_until));
    const limits = limitsOf?.(routeIdOfRow(pool)) ?? {};
    const limit = Math.min(
      pool.learned_limit ?? Number.POSITIVE_INFINITY,
      limits.maxInFlight ?? Number.POSITIVE_INFINITY,
    );
    // Slots left at the hold's end; none when the pool is full (the first then waits a call's end).
    const free = Math.max(0, limit - Number(pool.in_flight));
    const others = (pool.others ?? '').split(',').filter(Boolean).map(Number);
    const ahead = called ? 0 : position - 1 + others.reduce((sum, n) => sum + Math.min(n, position), 0);
    let at: number | undefined;
    if (ahead < free) at = base;
    else {
      const recent = Number(pool.recent);
      const perWindow = recent > 0 ? recent : configuredPerMinute(limits);
      if (perWindow !== undefined) at = base + Math.ceil(((ahead - free + 1) * windowMs) / perWindow);
    }
    if (at === undefined) return undefined;
    return new Date(Math.ceil(at / ESTIMATE_STEP_MS) * ESTIMATE_STEP_MS).toISOString();
  }
}

export type WaitPlaces = ReturnType<typeof createWaitPlaces>;
