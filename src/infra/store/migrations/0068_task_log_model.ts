import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The task log by model (issue 43) walks one index of tasks: the model the task was asked for (its
    // generation's, kept through fallbacks), copied onto the task. Walking the model's generations
    // (0062's generations_model_created) and sorting their tasks took 0.7 s at a million tasks for a
    // model a third of them use (bench row A1).
    await db.schema.alterTable('tasks').addColumn('model', 'text').execute();
    // Calls that submitted the task (the log's `attempts`): `attempts` is the engine's count of
    // failures in a row, reset by an accepted submit. Tasks made before are counted from it, and
    // one more for a task an upstream accepted (completed, or with a job).
    await db.schema
      .alterTable('tasks')
      .addColumn('submits', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await sql`update tasks set model = (select g.model from generations g where g.id = tasks.generation_id),
      submits = attempts + (case when status = 'completed' or upstream_id is not null then 1 else 0 end)`.execute(
      db,
    );
    await db.schema
      .createIndex('tasks_log_model')
      .on('tasks')
      .columns(['model', 'created_at', 'id'])
      .execute();
    await db.schema.dropIndex('generations_model_created').execute();
    // The log's error text: only tasks with an error (partial), so a text no task has walks those, not
    // every task (a full walk took 0.3 s at a million tasks). On SQLite the index also holds the status
    // and the text, so the walk reads no table row (97 → 24 ms over 70,000 errors, also with a status);
    // PostgreSQL's B-tree cannot hold a text of any length (an entry is at most a third of a page), so
    // there it is the keys alone.
    const sqlite = dialectOf(db) === 'sqlite';
    await db.schema
      .createIndex('tasks_log_errored')
      .on('tasks')
      .columns(sqlite ? ['created_at', 'id', 'status', 'error'] : ['created_at', 'id'])
      .where(sql.ref('error'), 'is not', null)
      .execute();
    // A route is a pair (provider, upstream model): PostgreSQL takes the two as independent unless told,
    // and so expects a ninth of the tasks where a route holds a third (a bitmap of every failed task
    // and every task of the route, sorted, instead of the route's walk).
    if (!sqlite)
      await sql`create statistics tasks_route_pair (dependencies) on provider, upstream_model from tasks`.execute(
        db,
      );
    if (!sqlite && (await trigramsAvailable(db))) {
      // And a trigram index of the text, where the pg_trgm extension is installed or may be: a text
      // few tasks contain is found at once (src/use-cases/read-models/task-log-error-text.ts).
      await sql`create extension if not exists pg_trgm`.execute(db);
      await sql`create index tasks_log_error_trgm on tasks using gin (lower(error) gin_trgm_ops) where error is not null`.execute(
        db,
      );
    }
  },
};

/** Whether pg_trgm is installed, or this role may install it (it is a trusted extension since PostgreSQL 13). */
async function trigramsAvailable(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{
    ok: boolean;
  }>`select exists (select 1 from pg_extension where extname = 'pg_trgm')
    or (has_database_privilege(current_database(), 'CREATE') and exists (
      select 1 from pg_available_extension_versions v where v.name = 'pg_trgm'
        and (v.trusted or (select rolsuper from pg_roles where rolname = current_user)))) as ok`.execute(db);
  return rows[0]?.ok === true;
}
