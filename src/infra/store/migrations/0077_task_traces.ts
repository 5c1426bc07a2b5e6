import type { Kysely, Migration } from 'kysely';

/**
 * Traces (issue 47): a task lives across nodes and time (queued, claimed later by another worker,
 * possibly after a crash), so the trace it belongs to travels on its row: the trace id (32 hex),
 * the id of the task's own span (16 hex, chosen when the task is created and used when it ends, so
 * every worker's spans of the task are its children) and the id of its parent, the request's span.
 * Null when tracing was off when the task was created, or the caller's trace was not sampled.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('tasks').addColumn('trace_id', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('trace_span_id', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('trace_parent_span_id', 'text').execute();
  },
};
