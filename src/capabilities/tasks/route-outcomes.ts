import { sql } from 'kysely';
import type { Db } from '../../infra/store/database.js';

/** A task's route (provider and upstream model); undefined when there is no such task. */
export async function routeOfTask(
  db: Db,
  taskId: string,
): Promise<{ provider: string; upstreamModel: string } | undefined> {
  const row = await db
    .selectFrom('tasks')
    .select(['provider', 'upstream_model'])
    .where('id', '=', taskId)
    .executeTakeFirst();
  return row && { provider: row.provider, upstreamModel: row.upstream_model };
}

/**
 * How a route's tasks created since `since` ended so far: finished (completed or failed) and
 * failed. Walks the task log's route index (upstream_model, provider, created_at).
 */
export async function routeOutcomes(
  db: Db,
  route: { provider: string; upstreamModel: string },
  since: number,
): Promise<{ finished: number; failed: number }> {
  const row = await db
    .selectFrom('tasks')
    .select([
      sql<number | string>`sum(case when status in ('completed', 'failed') then 1 else 0 end)`.as('finished'),
      sql<number | string>`sum(case when status = 'failed' then 1 else 0 end)`.as('failed'),
    ])
    .where('upstream_model', '=', route.upstreamModel)
    .where('provider', '=', route.provider)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return { finished: Number(row?.finished ?? 0), failed: Number(row?.failed ?? 0) };
}
