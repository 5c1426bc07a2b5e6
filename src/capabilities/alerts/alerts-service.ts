import type { Logger } from 'pino';
import type { AlertDelivery } from '../../base/contract/admin-alerts.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { SecretBox } from '../../base/secrets/secret-box.js';
import { leaseOwnerId } from '../../infra/jobs/dead-lease-reclaim.js';
import type { ProcessOwner } from '../../infra/jobs/process-owner.js';
import type { SafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import type { Db } from '../../infra/store/database.js';
import { createDeliveryLeases, createDeliveryWorker, type DeliveryWorkerOptions } from '../webhooks/index.js';
import {
  type BreakerChange,
  createDetection,
  type DetectionReads,
  type KeyTakenOut,
  type TaskEnded,
} from './alert-detection.js';
import { type AlertEvent, alertBody } from './alert-messages.js';
import { type AlertRule, createAlertRules } from './alert-rules.js';
import { type AlertDeliveryRow, type AlertsStore, createAlertsStore } from './alerts-store.js';

/** What the alerts capability is built over. */
export interface AlertsDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  secrets: SecretBox;
  fetcher: Pick<SafeFetcher, 'vetUrl' | 'postPinned'>;
  processOwner?: ProcessOwner | undefined;
  logger: Logger;
  reads: DetectionReads;
  /** The task webhooks' retry schedule and attempt limits: alerts are delivered the same way. */
  options: Omit<DeliveryWorkerOptions, 'concurrency'>;
}

/** Recent deliveries the console lists. */
const RECENT_DELIVERIES = 50;

/** Enqueues one message of a rule and wakes the worker; answers the delivery's id. */
function alertSender(deps: AlertsDeps, store: AlertsStore, wake: () => void) {
  return async (rule: AlertRule, subject: string, event: AlertEvent): Promise<string> => {
    const now = deps.clock.now();
    const id = deps.ids.next('alm');
    await store.insertDelivery({
      id,
      rule_id: rule.id,
      kind: event.kind,
      subject,
      url: rule.url,
      payload: alertBody(event, rule.format),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now + (deps.options.retryScheduleMs[0] ?? 0),
      last_status_code: null,
      last_error: null,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    });
    wake();
    return id;
  };
}

/**
 * Alerts: the operator's rules, detection of the four kinds of event (an upstream's breaker
 * opening, a pooled key taken out, a budget threshold crossed, a route's failure rate), once per
 * event across every node, and their delivery — the task webhooks' worker over the alert outbox,
 * signed with each rule's secret, retried on the same schedule.
 */
export function createAlertsService(deps: AlertsDeps) {
  const { clock, logger } = deps;
  const store = createAlertsStore(deps);
  const rules = createAlertRules({ ...deps, store });
  const pending = new Set<Promise<void>>();
  const worker = createDeliveryWorker<AlertDeliveryRow>({
    what: 'alert delivery',
    subject: 'url',
    deliveries: createDeliveryLeases<AlertDeliveryRow>({ ...deps, table: 'alert_deliveries' }),
    signingSecretsFor: (delivery) => rules.secretOf(delivery.rule_id),
    clock,
    owner: leaseOwnerId(deps.processOwner, deps.ids.next('wrk')),
    ...(deps.processOwner ? { processOwner: deps.processOwner } : {}),
    logger,
    post: deps.fetcher.postPinned,
    options: { ...deps.options, concurrency: 4 },
  });

  const send = alertSender(deps, store, () => worker.wake());

  const detection = createDetection({
    rules,
    store,
    clock,
    reads: deps.reads,
    send: async (rule, subject, event) => void (await send(rule, subject, event)),
  });

  /** Runs a detection in the background (callers need not wait for it); its promise never rejects. */
  const detect = (what: string, run: () => Promise<void>): Promise<void> => {
    const promise = run()
      .catch((error) => logger.error({ err: error }, `could not check ${what} for alerts`))
      .finally(() => pending.delete(promise));
    pending.add(promise);
    return promise;
  };

  return {
    create: rules.create,
    list: rules.list,
    get: rules.get,
    update: rules.update,
    remove: rules.remove,

    /** Sends a test message through a rule (enabled or not); answers its delivery. */
    async test(id: string): Promise<AlertDelivery> {
      const rule = await rules.rule(id);
      const summary = `test message of the ${rule.kind} alert rule ${rule.id}`;
      const deliveryId = await send(rule, `test:${clock.now()}`, {
        kind: 'test',
        at: clock.now(),
        summary,
        data: { rule_id: rule.id, rule_kind: rule.kind },
      });
      const [delivery] = (await store.recentDeliveries(RECENT_DELIVERIES, rule.id)).filter(
        (d) => d.id === deliveryId,
      );
      if (!delivery) throw new Error('the test delivery vanished');
      return delivery;
    },

    /** The newest deliveries, of one rule or all, with their attempts and next retry. */
    deliveries: (ruleId?: string) => store.recentDeliveries(RECENT_DELIVERIES, ruleId),

    /** Signals, each checked in the background (the caller never waits). */
    breakerChanged: (change: BreakerChange) => detect('a breaker', () => detection.breakerChanged(change)),
    keyTakenOut: (out: KeyTakenOut) => detect('a key taken out', () => detection.keyTakenOut(out)),
    taskEnded: (ended: TaskEnded) => detect('an ended task', () => detection.taskEnded(ended)),

    /** Starts the delivery worker (the worker role). */
    start: worker.start,

    /** Waits for the checks under way, then stops the delivery worker. */
    async stop(graceMs?: number): Promise<void> {
      await Promise.allSettled([...pending]);
      await worker.stop(graceMs);
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
