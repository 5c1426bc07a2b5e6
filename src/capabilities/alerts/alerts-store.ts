import type { AlertDelivery } from '../../base/contract/admin-alerts.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { AlertDeliveriesTable, AlertRulesTable } from '../../infra/store/schema/alerts.js';

export type AlertRuleRow = AlertRulesTable;
export type AlertDeliveryRow = AlertDeliveriesTable;

/** The alert tables' queries: rules, episodes (the once-per-event claims) and the outbox's rows. */
export function createAlertsStore({ db, clock }: { db: Db; clock: Clock }) {
  return {
    async insertRule(row: AlertRuleRow): Promise<void> {
      await db.insertInto('alert_rules').values(row).execute();
    },
    list: (): Promise<AlertRuleRow[]> =>
      db.selectFrom('alert_rules').selectAll().orderBy('created_at').orderBy('id').execute(),
    enabled: (): Promise<AlertRuleRow[]> =>
      db.selectFrom('alert_rules').selectAll().where('enabled', '=', 1).execute(),
    byId: (id: string): Promise<AlertRuleRow | undefined> =>
      db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst(),
    async updateRule(id: string, patch: Partial<AlertRuleRow>): Promise<void> {
      await db.updateTable('alert_rules').set(patch).where('id', '=', id).execute();
    },
    async deleteRule(id: string): Promise<boolean> {
      // Its episodes and deliveries go with it (cascade; deleted here too for SQLite files without it).
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('alert_deliveries').where('rule_id', '=', id).execute();
        await trx.deleteFrom('alert_episodes').where('rule_id', '=', id).execute();
        const result = await trx.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) === 1;
      });
    },

    /**
     * Claims the event `subject` of a rule: true for exactly one caller across every node — the one
     * whose insert made the row, or whose update turned a recovered episode firing again.
     */
    async claim(ruleId: string, subject: string): Promise<boolean> {
      const now = clock.now();
      const inserted = await db
        .insertInto('alert_episodes')
        .values({ rule_id: ruleId, subject, firing: 1, fired_at: now, recovered_at: null })
        .onConflict((oc) => oc.columns(['rule_id', 'subject']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
      const again = await db
        .updateTable('alert_episodes')
        .set({ firing: 1, fired_at: now, recovered_at: null })
        .where('rule_id', '=', ruleId)
        .where('subject', '=', subject)
        .where('firing', '=', 0)
        .executeTakeFirst();
      return Number(again.numUpdatedRows) === 1;
    },

    /** Ends a firing episode (the subject recovered); true when this call ended it. */
    async recover(ruleId: string, subject: string): Promise<boolean> {
      const result = await db
        .updateTable('alert_episodes')
        .set({ firing: 0, recovered_at: clock.now() })
        .where('rule_id', '=', ruleId)
        .where('subject', '=', subject)
        .where('firing', '=', 1)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Whether the rule's episode of `subject` is firing. */
    async firing(ruleId: string, subject: string): Promise<boolean> {
      const row = await db
        .selectFrom('alert_episodes')
        .select('firing')
        .where('rule_id', '=', ruleId)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return Number(row?.firing ?? 0) === 1;
    },

    async insertDelivery(row: AlertDeliveryRow): Promise<void> {
      await db.insertInto('alert_deliveries').values(row).execute();
    },

    /** The newest deliveries (of one rule, or all), newest first. */
    async recentDeliveries(limit: number, ruleId?: string): Promise<AlertDelivery[]> {
      let query = db.selectFrom('alert_deliveries').selectAll();
      if (ruleId !== undefined) query = query.where('rule_id', '=', ruleId);
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toDelivery);
    },
  };
}

function toDelivery(row: AlertDeliveryRow): AlertDelivery {
  const time = (value: number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    rule_id: row.rule_id,
    kind: row.kind as AlertDelivery['kind'],
    url: row.url,
    state: row.state,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: time(row.next_attempt_at),
    created_at: Number(row.created_at),
    delivered_at: time(row.delivered_at),
  };
}

export type AlertsStore = ReturnType<typeof createAlertsStore>;
