import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Fair claims (issue 39): the engine reads each account's line of due tasks in due order, and
    // counts the tasks each account holds under a live lease, at every claim. This index of the
    // unfinished tasks answers both without a sort or a read of the table (its columns are all the
    // claim needs), so a claim costs a pass over a few bytes per unfinished task.
    await db.schema
      .createIndex('tasks_due_by_account')
      .on('tasks')
      .columns(['account_id', 'next_run_at', 'id', 'lease_expires_at'])
      .where(sql.ref('status'), 'in', sql`('queued', 'in_progress')`)
      .execute();
  },
};
