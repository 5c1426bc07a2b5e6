import { type Kysely, type Migration, sql } from 'kysely';

/** How far back the webhooks' sweep looks (SWEEP_WINDOW_MS in webhooks-service.ts, frozen here). */
const SWEEP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The webhooks' outbox of finished tasks (issue 28): when a task whose generation has a callbackUrl
 * ends, the write that ends it also writes its finished record here, in the same transaction. The
 * webhooks build their deliveries from these rows (and their sweep finds the ones never enqueued)
 * instead of reading `tasks`. Rows are kept for the sweep's window, then pruned.
 *
 * Backfill: the finished tasks whose callback is within the sweep's window get their row, so a
 * delivery that a crash left unenqueued before the upgrade is still found by the sweep after it.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_outbox')
      .addColumn('task_id', 'text', (c) => c.primaryKey())
      .addColumn('generation_id', 'text', (c) =>
        c.notNull().references('webhook_callbacks.generation_id').onDelete('cascade'),
      )
      .addColumn('account_id', 'text', (c) => c.notNull())
      // The task's finished record, as the columns its wire record is made of.
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('progress', 'integer', (c) => c.notNull())
      .addColumn('image_url', 'text')
      .addColumn('error', 'text')
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('bytes', 'integer')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('webhook_outbox_generation')
      .on('webhook_outbox')
      .columns(['generation_id'])
      .execute();
    await db.schema
      .createIndex('webhook_outbox_finished')
      .on('webhook_outbox')
      .columns(['finished_at'])
      .execute();

    await sql`
      insert into webhook_outbox (task_id, generation_id, account_id, status, progress, image_url,
        error, width, height, content_type, bytes, provider, finished_at)
      select t.id, t.generation_id, t.account_id, t.status, t.progress, t.image_url, t.error, t.width,
        t.height, t.content_type, t.bytes, t.provider, t.finished_at
      from tasks t
      join webhook_callbacks c on c.generation_id = t.generation_id
      where t.status in ('completed', 'failed') and c.created_at >= ${Date.now() - SWEEP_WINDOW_MS}
    `.execute(db);
  },
};
