import { sql } from 'kysely';
import type { TaskStatus } from '../../base/domain/task-status.js';
import type { Db } from '../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../infra/store/schema/capacity.js';
import { POLLS_SUFFIX } from './capacity/capacity-pool.js';
import { isUnfinished } from './unfinished-tasks.js';

/** Where an unfinished task stands, as the queue view counts it. */
export type QueuePlace = 'capacity' | 'turn' | 'retry' | 'working' | 'upstream';

/** Unfinished tasks of one route, account, pool, status and place, counted. */
export interface QueueGroup {
  provider: string;
  upstream_model: string;
  account_id: string;
  pool: string | null;
  status: TaskStatus;
  place: QueuePlace;
  n: number;
  oldest: number;
  next_run: number;
}

/**
 * Every unfinished task counted by route, account, pool, status and place, in one pass over the
 * partial index of unfinished tasks (its condition stated literally, so both stores use it): the
 * cost grows with the tasks waiting and running, never with the history. The place, in order:
 * accepted upstream (an upstream job, or in progress); held by a live lease (a worker asks a slot
 * or calls); due (waits for a worker's fair turn, called-back parked tasks among them); parked on
 * a pool; else due later (a retry, or an open circuit's probe).
 */
export async function readQueueGroups(db: Db, now: number): Promise<QueueGroup[]> {
  const { rows } = await queueGroupsQuery(now).execute(db);
  return rows.map((row) => ({
    ...row,
    n: Number(row.n),
    oldest: Number(row.oldest),
    next_run: Number(row.next_run),
  }));
}

/** The query of `readQueueGroups` (its plan is checked in test/admin/admin-queue.test.ts). */
export function queueGroupsQuery(now: number) {
  // Grouped by the route id as a whole: grouped by its two columns, SQLite walked the task log's
  // index of every task by route (for its order) instead of the partial index of unfinished tasks.
  return sql<QueueGroup>`
    select min(t.provider) as provider, min(t.upstream_model) as upstream_model, t.account_id,
      t.capacity_pool as pool, t.status,
      case
        when t.upstream_id is not null or t.status = 'in_progress' then 'upstream'
        when t.lease_expires_at > ${now} then 'working'
        when t.next_run_at <= ${now} then 'turn'
        when t.capacity_pool is not null then 'capacity'
        else 'retry'
      end as place,
      count(*) as n, min(t.created_at) as oldest, min(t.next_run_at) as next_run
    from tasks t
    where ${isUnfinished}
    group by t.provider || '/' || t.upstream_model, 3, 4, 5, 6`;
}

/** A pool's row with what its calls count now. */
export interface QueuePoolRow extends UpstreamPoolsTable {
  in_flight: number;
  in_window: number;
  refused_in_window: number;
  oldest_in_window: number | null;
  since_quota: number;
}

/** Every capacity pool (not the rows that hold polls) with its calls counted over `windowSpan`. */
export async function readQueuePools(db: Db, now: number, windowSpan: number): Promise<QueuePoolRow[]> {
  const since = now - windowSpan;
  const { rows } = await sql<QueuePoolRow>`
    select p.*,
      (select count(*) from upstream_calls c where c.pool = p.pool and c.ended_at is null) as in_flight,
      (select count(*) from upstream_calls c
        where c.pool = p.pool and c.started_at > ${since} and c.refused = 0) as in_window,
      (select count(*) from upstream_calls c
        where c.pool = p.pool and c.started_at > ${since} and c.refused = 1) as refused_in_window,
      (select min(c.started_at) from upstream_calls c
        where c.pool = p.pool and c.started_at > ${since} and c.refused = 0) as oldest_in_window,
      (select count(*) from upstream_calls c
        where c.pool = p.pool and c.started_at >= p.quota_seen_at and c.refused = 0) as since_quota
    from upstream_pools p
    where p.pool not like ${`%${POLLS_SUFFIX}`}
    order by p.provider, p.upstream_model, p.key_hash`.execute(db);
  return rows.map((row) => ({
    ...row,
    learned_limit: row.learned_limit === null ? null : Number(row.learned_limit),
    hold_until: Number(row.hold_until),
    refused_at: Number(row.refused_at),
    ramp_since: Number(row.ramp_since),
    ramp_base: Number(row.ramp_base),
    successes: Number(row.successes),
    burst_floor: Number(row.burst_floor),
    retry_at: Number(row.retry_at),
    updated_at: Number(row.updated_at),
    quota_limit: row.quota_limit === null ? null : Number(row.quota_limit),
    quota_remaining: row.quota_remaining === null ? null : Number(row.quota_remaining),
    quota_reset_at: Number(row.quota_reset_at),
    quota_seen_at: Number(row.quota_seen_at),
    in_flight: Number(row.in_flight),
    in_window: Number(row.in_window),
    refused_in_window: Number(row.refused_in_window),
    oldest_in_window: row.oldest_in_window === null ? null : Number(row.oldest_in_window),
    since_quota: Number(row.since_quota),
  }));
}

/** What a cancel of many takes: an account's tasks, or a route's. */
export type CancelScope = { kind: 'account'; accountId: string } | { kind: 'route'; routeId: string };

/**
 * The ids of the unfinished tasks of a scope whose status is one of `statuses`. An account's are
 * read along its index of unfinished tasks; a route's along the partial index of unfinished tasks
 * (the route id is matched as a whole, so the planner never walks the route's whole history on the
 * task log's route index).
 */
export async function selectCancelIds(
  db: Db,
  scope: CancelScope,
  statuses: readonly TaskStatus[],
): Promise<string[]> {
  const rows = await cancelIdsQuery(db, scope, statuses).execute();
  return rows.map((row) => row.id);
}

/** The query of `selectCancelIds` (its plan is checked in test/admin/admin-queue.test.ts). */
export function cancelIdsQuery(db: Db, scope: CancelScope, statuses: readonly TaskStatus[]) {
  const query = db
    .selectFrom('tasks')
    .select('id')
    .where(isUnfinished)
    .where('status', 'in', [...statuses]);
  if (scope.kind === 'account') return query.where('account_id', '=', scope.accountId);
  const routeId = sql<string>`${sql.ref('provider')} || '/' || ${sql.ref('upstream_model')}`;
  return query.where(routeId, '=', scope.routeId);
}

/** A task's account and status, of any account; undefined when there is no such task. */
export function findTaskStatus(db: Db, taskId: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'account_id', 'status', 'error'])
    .where('id', '=', taskId)
    .executeTakeFirst();
}
