import { sql } from 'kysely';
import type { Db } from '../../../infra/store/database.js';

/**
 * Calls back up to `count` tasks parked on the pool `poolId`, in fair turns: the account with the
 * fewest calls on the pool goes next (a fair share of the slots, round robin between equals), and
 * within one account its tasks go in submission order. Returns their number.
 */
export async function callBackInTurns(trx: Db, poolId: string, count: number, now: number): Promise<number> {
  if (count <= 0) return 0;
  const limit = Number.isFinite(count) ? count : 100_000;
  // An account's turn: its waiting tasks in submission order, each behind the calls the account
  // already has on the pool (in flight, or called back and on their way).
  const result = await sql<{ id: string }>`
    with busy as (
      select t.account_id, count(*) as n
      from upstream_calls c join tasks t on t.id = c.task_id
      where c.pool = ${poolId} and c.ended_at is null
      group by t.account_id
      union all
      select account_id, count(*) as n
      from tasks
      where capacity_pool = ${poolId} and status in ('queued', 'in_progress') and next_run_at <= ${now}
      group by account_id
    ), load as (
      select account_id, sum(n) as n from busy group by account_id
    )
    update tasks set next_run_at = ${now}
    where id in (
      select id from (
        select t.id, t.created_at,
          row_number() over (partition by t.account_id order by t.created_at, t.idx) + coalesce(l.n, 0) as turn
        from tasks t left join load l on l.account_id = t.account_id
        where t.capacity_pool = ${poolId} and t.status in ('queued', 'in_progress') and t.next_run_at > ${now}
      ) waiting
      order by turn, created_at, id
      limit ${limit}
    )`.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}
