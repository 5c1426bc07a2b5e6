import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The operator's task log (issue 43): what the engine did not keep until now, kept on the task.
    // Calls the upstream refused (429) for this task; upstream_calls rows are pruned after the pool's
    // window, so the count lives here (raised in the same transaction that ends the refused call).
    await db.schema
      .alterTable('tasks')
      .addColumn('upstream_refusals', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    // The task's moves to a next route (JSON array of { from, to, at, error }); null: it never moved.
    await db.schema.alterTable('tasks').addColumn('fallbacks_json', 'text').execute();
    // The log's pages, newest first, each filter walked by an index in (created_at, id) order: every
    // task (and by provider); failed tasks; by route (the upstream model first: led by the provider,
    // SQLite took it for the engine's count of unfinished tasks per provider, a walk of every task).
    // By account and by key the indexes of 0009 and 0031 walk.
    await db.schema.createIndex('tasks_log_created').on('tasks').columns(['created_at', 'id']).execute();
    // Failed tasks alone (partial): an index led by status would also answer the engine's due-queue
    // reads on SQLite, in place of its partial indexes (test/engine/query-plans.test.ts). Completed
    // tasks are most rows (the walk of every task finds them at once); unfinished ones are few.
    await db.schema
      .createIndex('tasks_log_failed')
      .on('tasks')
      .columns(['created_at', 'id'])
      .where(sql.ref('status'), '=', sql`'failed'`)
      .execute();
    await db.schema
      .createIndex('tasks_log_route')
      .on('tasks')
      .columns(['upstream_model', 'provider', 'created_at', 'id'])
      .execute();
    // By model (a generation's): the generations of the model, then their tasks (tasks_generation).
    await db.schema
      .createIndex('generations_model_created')
      .on('generations')
      .columns(['model', 'created_at'])
      .execute();
    // A task's detail: its upstream calls still kept.
    await db.schema.createIndex('upstream_calls_task').on('upstream_calls').column('task_id').execute();
  },
};
