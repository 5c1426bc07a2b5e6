import { sql } from 'kysely';
import type { Db } from '../../infra/store/database.js';
import { isUnfinished } from './unfinished-tasks.js';

/**
 * Which due tasks a worker claims next, in fair turns between accounts (issue 39): the account with
 * the fewest tasks under a live lease — on any worker of the store — goes first, and one account's
 * tasks go in due order. Each due task's place is its turn in its account's own line plus the tasks
 * its account already holds, so a claim of `limit` tasks interleaves the accounts, and one account
 * whose backlog of thousands fills every worker's slots hands the next freed slot to another
 * account's task, wherever that task sits in due order.
 *
 * Before, the claim took the `limit` earliest-due tasks: with more tasks due than a worker's slots
 * (`ATELIER_WORKER_CONCURRENCY`, 2,000), another account's task waited until every task due before
 * it had been claimed — on the `local` renderer, thousands of renders.
 *
 * Both sub-selects read the index of unfinished tasks by account (`tasks_due_by_account`, migration
 * 0044), which holds every column they need in the order the lines are numbered: a claim is one pass
 * over that index, with no sort but the last one, of at most `limit` tasks per account.
 */
export function fairDueIds(db: Db, now: number, limit: number) {
  const due = db
    .selectFrom('tasks')
    .select([
      'id',
      'account_id',
      'next_run_at',
      sql<number>`row_number() over (partition by ${sql.ref('account_id')} order by ${sql.ref('next_run_at')}, ${sql.ref('id')})`.as(
        'turn',
      ),
    ])
    .where(isUnfinished)
    .where('next_run_at', '<=', now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]));
  const held = db
    .selectFrom('tasks')
    .select(['account_id', sql<number>`count(*)`.as('held')])
    .where(isUnfinished)
    .where('lease_expires_at', '>', now)
    .groupBy('account_id');
  return (
    db
      .selectFrom(due.as('due'))
      .leftJoin(held.as('held'), 'held.account_id', 'due.account_id')
      .select('due.id')
      // An account's tasks past the `limit` first of its line can never be picked.
      .where('due.turn', '<=', limit)
      .orderBy(sql`${sql.ref('due.turn')} + coalesce(${sql.ref('held.held')}, 0)`)
      .orderBy('due.next_run_at')
      .orderBy('due.id')
      .limit(limit)
  );
}
