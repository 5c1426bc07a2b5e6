import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { dialectOf } from './dialect.js';

/** Schema migrations, in order. Written with portable types so PostgreSQL can run them too. */
const migrations: Record<string, Migration> = {
  '0001_core': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('api_key_hint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('upstream_keys')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('ciphertext', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('upstream_keys_pk', ['account_id', 'provider'])
        .execute();

      await db.schema
        .createTable('generations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('aspect', 'text', (c) => c.notNull())
        .addColumn('image_size', 'text', (c) => c.notNull())
        .addColumn('image_count', 'integer', (c) => c.notNull())
        .addColumn('refs_json', 'text', (c) => c.notNull())
        .addColumn('ref_keys_json', 'text', (c) => c.notNull())
        .addColumn('rejected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('generations_account_created')
        .on('generations')
        .columns(['account_id', 'rejected', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('generation_id', 'text', (c) =>
          c.notNull().references('generations.id').onDelete('cascade'),
        )
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('upstream_model', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('image_url', 'text')
        .addColumn('blob_key', 'text')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('content_type', 'text')
        .addColumn('bytes', 'integer')
        .addColumn('upstream_id', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('polls', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_run_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('deadline_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tasks_generation').on('tasks').columns(['generation_id', 'idx']).execute();
      await db.schema
        .createIndex('tasks_account_status')
        .on('tasks')
        .columns(['account_id', 'status'])
        .execute();
      // The engine's due-queue: only unfinished tasks are indexed.
      await db.schema
        .createIndex('tasks_due')
        .on('tasks')
        .columns(['next_run_at'])
        .where(sql.ref('status'), 'in', sql`('queued', 'in_progress')`)
        .execute();

      await db.schema
        .createTable('assets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .addColumn('width', 'integer', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('generation_id', 'text')
        .addColumn('task_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('assets_account_created')
        .on('assets')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('assets_account_sha')
        .on('assets')
        .columns(['account_id', 'kind', 'sha256'])
        .execute();
    },
  },
  '0002_web': {
    async up(db: Kysely<unknown>) {
      // Website sessions live in the database so that several nodes share them; the cookie carries
      // a random token and only its SHA-256 is stored.
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_account').on('sessions').columns(['account_id']).execute();
      await db.schema.createIndex('sessions_expires').on('sessions').columns(['expires_at']).execute();

      // Deleting a saved work hides it from the gallery; history keeps the row, marked removed.
      await db.schema.alterTable('generations').addColumn('deleted_at', 'bigint').execute();
    },
  },
  '0003_idempotency': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
        .execute();
      await db.schema
        .createIndex('idempotency_keys_created')
        .on('idempotency_keys')
        .columns(['created_at'])
        .execute();
    },
  },
  '0004_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook_secrets')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('ciphertext', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      // The callbackUrl of a generate request, beside the generation rather than in it.
      await db.schema
        .createTable('webhook_callbacks')
        .addColumn('generation_id', 'text', (c) =>
          c.primaryKey().references('generations.id').onDelete('cascade'),
        )
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_callbacks_created')
        .on('webhook_callbacks')
        .columns(['created_at'])
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .execute();
      // One delivery per task and event: enqueueing twice (two notifications, the sweep) is a no-op.
      await db.schema
        .createIndex('webhook_deliveries_task_type')
        .on('webhook_deliveries')
        .columns(['task_id', 'type'])
        .unique()
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_account_created')
        .on('webhook_deliveries')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      // The delivery worker's due-queue: only pending deliveries are indexed.
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['next_attempt_at'])
        .where(sql.ref('state'), '=', sql`'pending'`)
        .execute();
    },
  },
  '0005_task_reconcile': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('tasks')
        .addColumn('needs_reconcile', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0006_sign_in_failures': {
    async up(db: Kysely<unknown>) {
      // The sign-in throttle lives in the database so that every node shares one budget per key.
      await db.schema
        .createTable('sign_in_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
        .addColumn('blocked_until', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('sign_in_failures_last_failure')
        .on('sign_in_failures')
        .column('last_failure_at')
        .execute();
    },
  },
  '0007_idempotency_claim_owner': {
    async up(db: Kysely<unknown>) {
      // An in-progress Idempotency-Key names the process working on it and when its claim runs out
      // (renewed while the request runs), so a crashed holder's key is freed instead of held 10 min.
      await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
      await db.schema.alterTable('idempotency_keys').addColumn('expires_at', 'bigint').execute();
    },
  },
  '0008_generation_counts': {
    async up(db: Kysely<unknown>) {
      // History's total and total_pages come from a counter kept with the generations, instead of a
      // COUNT(*) over every one of the account's generations on each page.
      await db.schema
        .createTable('generation_counts')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('history_total', 'bigint', (c) => c.notNull())
        .addColumn('saved_total', 'bigint', (c) => c.notNull())
        .execute();
      await sql`insert into generation_counts (account_id, history_total, saved_total)
        select account_id, count(*), sum(case when deleted_at is null then 1 else 0 end)
        from generations where rejected = 0 group by account_id`.execute(db);
      // The gallery's pages (saved works: not rejected, not deleted) walk this index alone.
      await db.schema
        .createIndex('generations_saved')
        .on('generations')
        .columns(['account_id', 'created_at', 'id'])
        .where(savedCondition)
        .execute();
    },
  },
  '0009_creation_views': {
    async up(db: Kysely<unknown>) {
      // The website's creation view, per account: when it last cleared its finished cards, so a
      // reload (or another device) does not bring them back.
      await db.schema
        .createTable('creation_views')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('cleared_at', 'bigint', (c) => c.notNull())
        .execute();
      // The creation view's listing: an account's tasks of the last day, newest first.
      await db.schema
        .createIndex('tasks_account_created')
        .on('tasks')
        .columns(['account_id', 'created_at'])
        .execute();
    },
  },
  '0010_usage': {
    async up(db: Kysely<unknown>) {
      // Images completed and failed per account, UTC day (of the final state) and model, kept by the
      // usage capability in the transaction of each task's final write.
      await db.schema
        .createTable('usage_daily')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('completed', 'bigint', (c) => c.notNull())
        .addColumn('failed', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'model'])
        .execute();
      // Tasks that ended before this migration are counted once, here.
      const day =
        dialectOf(db) === 'sqlite'
          ? sql`strftime('%Y-%m-%d', t.finished_at / 1000, 'unixepoch')`
          : sql`to_char(to_timestamp(t.finished_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
      await sql`insert into usage_daily (account_id, day, model, completed, failed)
        select t.account_id, ${day}, g.model,
          sum(case when t.status = 'completed' then 1 else 0 end),
          sum(case when t.status = 'failed' then 1 else 0 end)
        from tasks t join generations g on g.id = t.generation_id
        where t.status in ('completed', 'failed') and t.finished_at is not null
        group by t.account_id, ${day}, g.model`.execute(db);
    },
  },
  '0011_history_version': {
    async up(db: Kysely<unknown>) {
      // Moves with every change of what an account's history pages show (a generation created,
      // rejected or removed, a task completed), in the same transaction: a page kept in memory is
      // good while its account's version is the one it was read under.
      await db.schema
        .alterTable('generation_counts')
        .addColumn('history_version', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
};

/** The gallery's partial-index condition, stated literally by its queries too (see generations-repository). */
export const savedCondition = sql<boolean>`${sql.ref('rejected')} = 0 and ${sql.ref('deleted_at')} is null`;

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Key of the session-level advisory lock that serialises migrations across nodes (PostgreSQL). */
const MIGRATION_LOCK_KEY = 7_413_920_551;

/**
 * Brings the schema up to date; throws with the failing migration's error. On PostgreSQL the whole
 * run — including the creation of the migrator's own tables, which Kysely does outside its lock —
 * holds `pg_advisory_lock` on one connection, so nodes that start together migrate once, in turn.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'sqlite') return runMigrator(db);
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    try {
      await runMigrator(connection);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    }
  });
}

async function runMigrator(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`,
    );
  }
}
