import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await createAccounts(db);
    await createUpstreamKeys(db);
    await createGenerations(db);
    await createTasks(db);
    await createAssets(db);
  },
};

/** The accounts. */
async function createAccounts(db: Kysely<unknown>): Promise<void> {
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
}

/** Upstream keys an account brought, sealed. */
async function createUpstreamKeys(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('upstream_keys')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('upstream_keys_pk', ['account_id', 'provider'])
    .execute();
}

/** Generations: one request each, with its history index. */
async function createGenerations(db: Kysely<unknown>): Promise<void> {
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
}

/** Tasks: one image each, with the engine's due-queue. */
async function createTasks(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('generation_id', 'text', (c) => c.notNull().references('generations.id').onDelete('cascade'))
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
  await db.schema.createIndex('tasks_account_status').on('tasks').columns(['account_id', 'status']).execute();
  // The engine's due-queue: only unfinished tasks are indexed.
  await db.schema
    .createIndex('tasks_due')
    .on('tasks')
    .columns(['next_run_at'])
    .where(sql.ref('status'), 'in', sql`('queued', 'in_progress')`)
    .execute();
}

/** Assets: uploads and results, by account. */
async function createAssets(db: Kysely<unknown>): Promise<void> {
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
}
