import { sql } from 'kysely';
import type { Db } from '../../infra/store/database.js';
import { isUnfinished } from './tasks-repository.js';

/**
 * For tier policies, read through `executor` (the creating transaction, so its own new tasks
 * count): the account's tasks queued or in progress, and its images requested since `dayStart` and
 * since `monthStart` (`dayStart` ≥ `monthStart`) that did not fail. Tasks alone answer both (the
 * tasks capability owns them): a task is created with its generation (same account, same instant),
 * and a generation is rejected only when every one of its tasks failed at submit, so "not failed"
 * already leaves rejected generations out. The first query is answered by the (account, status)
 * index, the second by the (account, created_at) one.
 */
export async function countTasksForPolicy(
  executor: Db,
  accountId: string,
  since: { dayStart: number; monthStart: number },
): Promise<{ inFlight: number; today: number; thisMonth: number }> {
  const [inFlight, requested] = await Promise.all([
    executor
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where(isUnfinished)
      .executeTakeFirst(),
    executor
      .selectFrom('tasks')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('month'),
        sql<
          number | string | null
        >`sum(case when ${sql.ref('created_at')} >= ${since.dayStart} then 1 else 0 end)`.as('day'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since.monthStart)
      .where('status', '<>', 'failed')
      .executeTakeFirst(),
  ]);
  return {
    inFlight: Number(inFlight?.n ?? 0),
    today: Number(requested?.day ?? 0),
    thisMonth: Number(requested?.month ?? 0),
  };
}

/**
 * The deployment's unfinished tasks per provider, queued and in progress (the console's Upstreams
 * page: the local renderer has no capacity pool, so this is where its backlog shows). Answered
 * from the partial index of unfinished tasks (`tasks_due`), whatever the size of the history.
 */
export async function unfinishedByProvider(
  db: Db,
): Promise<Array<{ provider: string; queued: number; inProgress: number }>> {
  const rows = await db
    .selectFrom('tasks')
    .select(['provider', 'status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where(isUnfinished)
    .groupBy(['provider', 'status'])
    .execute();
  const byProvider = new Map<string, { provider: string; queued: number; inProgress: number }>();
  for (const row of rows) {
    const entry = byProvider.get(row.provider) ?? { provider: row.provider, queued: 0, inProgress: 0 };
    if (row.status === 'queued') entry.queued += Number(row.n);
    else entry.inProgress += Number(row.n);
    byProvider.set(row.provider, entry);
  }
  return [...byProvider.values()];
}
