import type { ExpressionBuilder, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import { LEGACY_SEAL_PREFIX } from '../../base/secrets/secret-box.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type {
  Database,
  WebhookCallbacksTable,
  WebhookDeliveriesTable,
  WebhookOutboxTable,
  WebhookSecretsTable,
} from '../../infra/store/schema.js';
import { skipLockedOn } from '../../infra/store/skip-locked.js';
import type { FinishedTask } from '../tasks/task-finish.js';

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

export type DeliveryRow = WebhookDeliveriesTable;
export type DeliveryPatch = Partial<
  Pick<
    WebhookDeliveriesTable,
    | 'state'
    | 'attempts'
    | 'next_attempt_at'
    | 'last_status_code'
    | 'last_error'
    | 'lease_owner'
    | 'lease_expires_at'
    | 'delivered_at'
  >
>;

/** PostgreSQL's driver reads a bigint as a string. */
const timeOrNull = (value: number | string | null) => (value === null ? null : Number(value));

/** Store queries for webhook secrets, callbacks and deliveries. */
export function createWebhooksRepository({ db, clock }: { db: Db; clock: Clock }) {
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

    /** The account's sealed signing secret, and the one its last rotation replaced (if any). */
    async findSecret(
      accountId: string,
    ): Promise<
      Pick<WebhookSecretsTable, 'ciphertext' | 'previous_ciphertext' | 'previous_expires_at'> | undefined
    > {
      const row = await db
        .selectFrom('webhook_secrets')
        .select(['ciphertext', 'previous_ciphertext', 'previous_expires_at'])
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row && { ...row, previous_expires_at: timeOrNull(row.previous_expires_at) };
    },

    /** Stores a sealed secret unless the account has one already (two first reads at once keep one). */
    async insertSecretIfAbsent(accountId: string, ciphertext: string): Promise<void> {
      await db
        .insertInto('webhook_secrets')
        .values({
          account_id: accountId,
          ciphertext,
          created_at: clock.now(),
          previous_ciphertext: null,
          previous_expires_at: null,
        })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
    },

    /**
     * Replaces the secret `from` by `to`, keeping `from` as the previous one until `previousUntil`
     * (null: not kept). Only if the row still holds `from`: of two rotations at once, one wins.
     */
    async rotateSecret(accountId: string, from: string, to: string, previousUntil: number | null) {
      const result = await db
        .updateTable('webhook_secrets')
        .set({
          ciphertext: to,
          created_at: clock.now(),
          previous_ciphertext: previousUntil === null ? null : from,
          previous_expires_at: previousUntil,
        })
        .where('account_id', '=', accountId)
        .where('ciphertext', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Secrets sealed before seals were bound to their row (the start binds them). */
    async legacySealedSecrets(): Promise<Array<{ account_id: string; sealed: string }>> {
      return db
        .selectFrom('webhook_secrets')
        .select(['account_id', 'ciphertext as sealed'])
        .where('ciphertext', 'like', `${LEGACY_SEAL_PREFIX}%`)
        .execute();
    },

    /** Replaces a sealed secret by the same secret sealed again, if the row still holds `from`. */
    async resealSecret(accountId: string, from: string, to: string): Promise<void> {
      await db
        .updateTable('webhook_secrets')
        .set({ ciphertext: to })
        .where('account_id', '=', accountId)
        .where('ciphertext', '=', from)
        .execute();
    },

    /**
     * The task-finished event's part of webhooks, in the transaction of the task's final write: a
     * task whose generation has a callback gets its finished record in the outbox (one indexed
     * insert-select; nothing for a task without a callback).
     */
    async recordFinished(trx: Transaction<Database>, task: FinishedTask): Promise<void> {
      const values = OUTBOX_RECORD_COLUMNS.map(([column]) => task[column]);
      await trx.executeQuery(
        outboxInsert(...values, task.id, task.account_id, task.finished_at, task.generation_id),
      );
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

    /** Inserts a delivery; false when this task already has one for this event type. */
    async enqueue(delivery: DeliveryRow): Promise<boolean> {
      const result = await db
        .insertInto('webhook_deliveries')
        .values(delivery)
        .onConflict((oc) => oc.columns(['task_id', 'type']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** Leases up to `limit` due pending deliveries not under someone else's live lease. */
    async leaseDue(owner: string, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
      const now = clock.now();
      const leasable = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.and([
          eb('state', '=', 'pending'),
          eb('next_attempt_at', '<=', now),
          eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]),
        ]);
      const due = skipLockedOn(
        db,
        db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where(leasable)
          .orderBy('next_attempt_at')
          .limit(limit),
      );
      // The UPDATE re-checks state, due time and lease (as the task lease does): two workers that
      // picked the same row never both get it, so one delivery is never sent by two nodes at once.
      return db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
        .where('id', 'in', due)
        .where(leasable)
        .returningAll()
        .execute();
    },

    /** Writes a leased delivery; only the lease holder may (a redeliver or a takeover wins otherwise). */
    async updateLeased(id: string, owner: string, patch: DeliveryPatch): Promise<boolean> {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ ...patch, updated_at: clock.now() })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Gives back every lease `owner` holds, so another worker can take the deliveries at once. */
    /** The distinct owners of the leases held on deliveries. */
    async leaseHolders(): Promise<string[]> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select('lease_owner')
        .distinct()
        .where('lease_owner', 'is not', null)
        .execute();
      return rows.flatMap((row) => (row.lease_owner ? [row.lease_owner] : []));
    },

    async releaseAll(owner: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('lease_owner', '=', owner)
        .execute();
    },

    /**
     * Earliest time a pending delivery could be leased: its due time, or the end of the live lease
     * that holds it (an attempt in flight is not due again until its holder lets go or dies).
     */
    async nextDueAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select(
          sql<
            number | string | null
          >`min(case when lease_expires_at > next_attempt_at then lease_expires_at else next_attempt_at end)`.as(
            'due',
          ),
        )
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row?.due == null ? undefined : Number(row.due);
    },

    /** One page of an account's deliveries, newest first (ties broken by id). */
    async page(accountId: string, page: number, limit: number) {
      const base = db.selectFrom('webhook_deliveries').where('account_id', '=', accountId);
      const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      const rows = await base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute();
      return { rows, total: Number(totalRow?.n ?? 0) };
    },

    async findForAccount(accountId: string, id: string): Promise<DeliveryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
    },

    /**
     * Makes a delivery due now as a new attempt series, unless an attempt is running (a live lease):
     * then false, so one message is never sent by two workers at once.
     */
    async restartSeries(accountId: string, id: string): Promise<boolean> {
      const now = clock.now();
      const result = await db
        .updateTable('webhook_deliveries')
        .set({
          state: 'pending',
          attempts: 0,
          next_attempt_at: now,
          delivered_at: null,
          lease_owner: null,
          lease_expires_at: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
