import { sql, type Transaction } from 'kysely';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { WebhookCallbacksTable, WebhookOutboxTable } from '../../infra/store/schema/webhooks.js';
import type { Database } from '../../infra/store/schema.js';
import type { FinishedTask } from '../tasks/index.js';

/** The finished record's columns the outbox keeps (what `toTaskRecord` maps onto the wire). */
const OUTBOX_RECORD_COLUMNS = [
  ['status', 'text'],
  ['progress', 'integer'],
  ['image_url', 'text'],
  ['error', 'text'],
  ['width', 'integer'],
  ['height', 'integer'],
  ['content_type', 'text'],
  ['bytes', 'integer'],
  ['provider', 'text'],
] as const;

/** Store queries for callbacks and the task-finished outbox (`webhook_callbacks`, `webhook_outbox`). */
export function createOutboxStore(db: Db) {
  // The two queries of every finished task, built and compiled once (not by Kysely per task).
  const outboxInsert = compiledOnce(OUTBOX_RECORD_COLUMNS.length + 4, (...values: unknown[]) => {
    const [taskId, accountId, finishedAt, generationId] = values.slice(OUTBOX_RECORD_COLUMNS.length);
    return db
      .insertInto('webhook_outbox')
      .columns([
        ...OUTBOX_RECORD_COLUMNS.map(([column]) => column),
        'task_id',
        'generation_id',
        'account_id',
        'finished_at',
      ])
      .expression((eb) =>
        eb
          .selectFrom('webhook_callbacks')
          // Typed casts: PostgreSQL would type a bare parameter in a select list as text.
          .select([
            ...OUTBOX_RECORD_COLUMNS.map(([column, type], i) =>
              sql`cast(${values[i]} as ${sql.raw(type)})`.as(column),
            ),
            sql`cast(${taskId} as text)`.as('task_id'),
            'generation_id',
            sql`cast(${accountId} as text)`.as('account_id'),
            sql`cast(${finishedAt} as bigint)`.as('finished_at'),
          ])
          .where('generation_id', '=', generationId as string),
      )
      .onConflict((oc) => oc.column('task_id').doNothing());
  });
  const callbackOfTask = compiledOnce(1, (taskId: string) =>
    db
      .selectFrom('webhook_outbox')
      .innerJoin('webhook_callbacks', 'webhook_callbacks.generation_id', 'webhook_outbox.generation_id')
      .select('webhook_callbacks.url')
      .where('webhook_outbox.task_id', '=', taskId),
  );
  return {
    /**
     * Records a generate request's callbackUrl in the caller's transaction, so the callback is
     * written together with the generation: a task can then never end before its callback exists.
     */
    async recordCallback(trx: Transaction<Database>, callback: WebhookCallbacksTable): Promise<void> {
      await trx.insertInto('webhook_callbacks').values(callback).execute();
    },

    /**
     * The task-finished event's part of webhooks, in the transaction of the task's final write: a
     * task whose generation has a callback gets its finished record in the outbox (one indexed
     * insert-select; nothing for a task without a callback). True when it wrote the task's record.
     */
    async recordFinished(trx: Transaction<Database>, task: FinishedTask): Promise<boolean> {
      const values = OUTBOX_RECORD_COLUMNS.map(([column]) => task[column]);
      const { numAffectedRows } = await trx.executeQuery(
        outboxInsert(...values, task.id, task.account_id, task.finished_at, task.generation_id),
      );
      return Number(numAffectedRows ?? 0) > 0;
    },

    /** The callback of a finished task (from the outbox), if its generation registered one. */
    async callbackForTask(taskId: string): Promise<Pick<WebhookCallbacksTable, 'url'> | undefined> {
      return (await db.executeQuery(callbackOfTask(taskId))).rows[0];
    },

    /**
     * Finished tasks with a callback but no delivery, for callbacks registered since `since`: what
     * a crash between a task's final write and its enqueue would leave behind.
     */
    async findUnenqueuedFinalTasks(
      since: number,
      limit: number,
    ): Promise<Array<WebhookOutboxTable & { url: string }>> {
      return db
        .selectFrom('webhook_callbacks')
        .innerJoin('webhook_outbox', 'webhook_outbox.generation_id', 'webhook_callbacks.generation_id')
        .selectAll('webhook_outbox')
        .select('webhook_callbacks.url')
        .where('webhook_callbacks.created_at', '>=', since)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries')
                .select('webhook_deliveries.id')
                .whereRef('webhook_deliveries.task_id', '=', 'webhook_outbox.task_id'),
            ),
          ),
        )
        .limit(limit)
        .execute();
    },

    /** Forgets the outbox rows of tasks finished before `before` (past the sweep's window). */
    async pruneOutbox(before: number): Promise<void> {
      await db.deleteFrom('webhook_outbox').where('finished_at', '<', before).execute();
    },
  };
}
