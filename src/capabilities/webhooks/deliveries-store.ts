import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { WebhookDeliveriesTable } from '../../infra/store/schema/webhooks.js';
import type { Database } from '../../infra/store/schema.js';
import { skipLockedOn } from '../../infra/store/skip-locked.js';

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

/** The outboxes the delivery worker sends from: task webhooks, and alerts (src/capabilities/alerts). */
export type OutboxTable = 'webhook_deliveries' | 'alert_deliveries';

/** The columns every outbox shares: what leasing, an attempt and its record touch. */
export type LeasedDelivery = Pick<DeliveryRow, 'id' | 'url' | 'payload' | 'attempts'>;

/** Inserts a task's delivery; false when this task already has one for this event type. */
export function createDeliveryEnqueue(db: Db) {
  return async (delivery: DeliveryRow): Promise<boolean> => {
    const result = await db
      .insertInto('webhook_deliveries')
      .values(delivery)
      .onConflict((oc) => oc.columns(['task_id', 'type']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  };
}

/**
 * The delivery worker's queries over one outbox: leasing, writing a leased delivery, giving leases
 * back. Both outboxes have the delivery columns these touch (state, attempts, due time, lease,
 * outcome) with the same types, so one set of queries serves them; `Row` is the outbox's row.
 */
export function createDeliveryLeases<Row extends LeasedDelivery = DeliveryRow>({
  db,
  clock,
  table = 'webhook_deliveries',
}: {
  db: Db;
  clock: Clock;
  table?: OutboxTable;
}) {
  // Typed as the task outbox: the queries below name only the columns both outboxes share.
  const outbox = table as 'webhook_deliveries';
  return {
    /** Leases up to `limit` due pending deliveries not under someone else's live lease. */
    async leaseDue(owner: string, leaseMs: number, limit: number): Promise<Row[]> {
      const now = clock.now();
      const leasable = (eb: ExpressionBuilder<Database, typeof outbox>) =>
        eb.and([
          eb('state', '=', 'pending'),
          eb('next_attempt_at', '<=', now),
          eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]),
        ]);
      const due = skipLockedOn(
        db,
        db.selectFrom(outbox).select('id').where(leasable).orderBy('next_attempt_at').limit(limit),
      );
      // The UPDATE re-checks state, due time and lease (as the task lease does): two workers that
      // picked the same row never both get it, so one delivery is never sent by two nodes at once.
      return db
        .updateTable(outbox)
        .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
        .where('id', 'in', due)
        .where(leasable)
        .returningAll()
        .execute() as Promise<unknown[]> as Promise<Row[]>;
    },

    /** Writes a leased delivery; only the lease holder may (a redeliver or a takeover wins otherwise). */
    async updateLeased(id: string, owner: string, patch: DeliveryPatch): Promise<boolean> {
      const result = await db
        .updateTable(outbox)
        .set({ ...patch, updated_at: clock.now() })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** The distinct owners of the leases held on deliveries. */
    async leaseHolders(): Promise<string[]> {
      const rows = await db
        .selectFrom(outbox)
        .select('lease_owner')
        .distinct()
        .where('lease_owner', 'is not', null)
        .execute();
      return rows.flatMap((row) => (row.lease_owner ? [row.lease_owner] : []));
    },

    /** Gives back every lease `owner` holds, so another worker can take the deliveries at once. */
    async releaseAll(owner: string): Promise<void> {
      await db
        .updateTable(outbox)
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
        .selectFrom(outbox)
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
  };
}

/** An account's view of its deliveries: pages, one by id, and a redelivery. */
export function createAccountDeliveries({ db, clock }: { db: Db; clock: Clock }) {
  return {
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

    /** One of the account's deliveries by id. */
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
