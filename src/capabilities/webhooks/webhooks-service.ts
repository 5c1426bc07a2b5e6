import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { DeliveryItem, WebhookPayload } from '../../base/contract/webhooks.js';
import { Conflict, DomainError, InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { WebhookEventType } from '../../base/domain/webhook-events.js';
import type { Tracing } from '../../base/observability/tracing.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { SecretBox } from '../../base/secrets/secret-box.js';
import { leaseOwnerId } from '../../infra/jobs/dead-lease-reclaim.js';
import type { ProcessOwner } from '../../infra/jobs/process-owner.js';
import type { SafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import type { Db } from '../../infra/store/database.js';
import type { Database } from '../../infra/store/schema.js';
import type { FinishedTask, TaskChange } from '../tasks/index.js';
import { readTaskSpan, type TaskRecord, toTaskRecord } from '../tasks/index.js';
import type { DeliveryRow } from './deliveries-store.js';
import {
  createDeliveryWorker,
  type DeliveryWorkerDeps,
  type DeliveryWorkerOptions,
} from './delivery-worker.js';
import { createSigningSecrets } from './signing-secrets.js';
import { createWebhooksRepository, type WebhooksRepository } from './webhooks-repository.js';

export type { DeliveryItem, WebhookPayload };

/** How far back the sweep looks for finished tasks whose delivery was never enqueued. */
const SWEEP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const SWEEP_BATCH = 200;
/** The most task ids kept between a final write's outbox record and the engine's change. */
const MAX_RECORDED = 10_000;

function eventTypeOf(record: TaskRecord): WebhookEventType | undefined {
  if (record.status === 'completed') return 'task.completed';
  if (record.status === 'failed') return 'task.failed';
  return undefined;
}

function toDeliveryItem(row: DeliveryRow): DeliveryItem {
  const time = (value: number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    task_id: row.task_id,
    url: row.url,
    type: row.type as DeliveryItem['type'],
    state: row.state as DeliveryItem['state'],
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: time(row.next_attempt_at),
    created_at: Number(row.created_at),
    delivered_at: time(row.delivered_at),
  };
}

/** What the webhooks capability is built over. */
export interface WebhooksDeps {
  /** Counts delivery attempts by outcome (metrics). */
  onAttempt?: DeliveryWorkerDeps<DeliveryRow>['onAttempt'];
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  secrets: SecretBox;
  fetcher: Pick<SafeFetcher, 'vetUrl' | 'postPinned'>;
  processOwner?: ProcessOwner;
  logger: Logger;
  options: Omit<DeliveryWorkerOptions, 'concurrency'> & { concurrency?: number };
  /** Traces: each delivery attempt a span under its task's (tracing on). */
  tracing?: Tracing;
}

/** What enqueueing and the sweep work with. */
interface Enqueueing {
  repository: WebhooksRepository;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  retryScheduleMs: readonly number[];
  /** Wakes the delivery worker (a delivery was enqueued or made due). */
  wake(): void;
}

/**
 * Webhooks: checks a generate request's callbackUrl, enqueues one durable delivery per task when
 * it ends (from the engine's change notifications), keeps each account's signing secret, and runs
 * the delivery worker.
 */
export function createWebhooksService(deps: WebhooksDeps) {
  const { clock, logger } = deps;
  const repository = createWebhooksRepository({ db: deps.db, clock });
  const enqueues = new Set<Promise<void>>();
  const recorded = outboxRecords(repository);
  const signingSecrets = createSigningSecrets({
    repository,
    secrets: deps.secrets,
    clock,
    onUnusableSeal: (accountId) =>
      logger.error(
        { accountId },
        'the sealed webhook secret does not open in its row (moved or tampered with); replaced',
      ),
  });
  const queue: Enqueueing = {
    repository,
    clock,
    ids: deps.ids,
    logger,
    retryScheduleMs: deps.options.retryScheduleMs,
    wake: () => worker.wake(),
  };
  const worker = createDeliveryWorker({
    deliveries: repository,
    post: deps.fetcher.postPinned,
    signingSecretsFor: (delivery) => signingSecrets.signing(delivery.account_id),
    sweep: () => sweep(queue),
    clock,
    owner: leaseOwnerId(deps.processOwner, deps.ids.next('wrk')),
    ...(deps.processOwner ? { processOwner: deps.processOwner } : {}),
    logger,
    ...(deps.onAttempt ? { onAttempt: deps.onAttempt } : {}),
    ...(deps.tracing?.enabled
      ? { tracing: deps.tracing, traceOf: (delivery: DeliveryRow) => readTaskSpan(deps.db, delivery.task_id) }
      : {}),
    options: { ...deps.options, concurrency: deps.options.concurrency ?? 16 },
  });

  return {
    /**
     * Checks a callbackUrl like an upload's source_url (scheme, no credentials, port, every resolved
     * address) so a bad one is refused before anything is created: 400 invalid_request naming it.
     */
    vetCallbackUrl: (url: string): Promise<void> => vetCallbackUrl(deps.fetcher, url),

    /**
     * The engine's change notification: a task that just ended gets its delivery enqueued, when its
     * final write recorded it in the outbox (its generation has a callback).
     */
    onTaskChanged(change: TaskChange): void {
      const type = eventTypeOf(change.record);
      if (!type || !recorded.taken(change.record.task_id)) return;
      const promise = enqueueOnChange(queue, change, type).finally(() => enqueues.delete(promise));
      enqueues.add(promise);
    },

    /** The task-finished event, in the transaction of the task's final write (the outbox row). */
    recordFinished: recorded.record,

    /**
     * Registers a generation's callbackUrl inside the transaction that creates the generation (the
     * caller's), so it commits or rolls back with it; every task of the generation reports there.
     */
    async recordCallback(
      trx: Transaction<Database>,
      callback: { generationId: string; accountId: string; url: string },
    ): Promise<void> {
      await repository.recordCallback(trx, {
        generation_id: callback.generationId,
        account_id: callback.accountId,
        url: callback.url,
        created_at: clock.now(),
      });
    },

    /** The account's `whsec_…` secret, created (and sealed at rest) on first use. */
    secretFor: signingSecrets.current,
    /** A new secret; the replaced one keeps signing for a grace period (see signing-secrets.ts). */
    rotateSecret: signingSecrets.rotate,
    /** Binds secrets sealed before seals were bound to their row (run at start). */
    bindLegacySecrets: signingSecrets.bindLegacy,

    async listDeliveries(accountId: string, page: number, limit: number) {
      const { rows, total } = await repository.page(accountId, page, limit);
      return { items: rows.map(toDeliveryItem), total, page, limit, total_pages: Math.ceil(total / limit) };
    },

    /** Makes an account's delivery due now, as a new attempt series with the same webhook-id. */
    redeliver: (accountId: string, id: string): Promise<DeliveryItem> => redeliver(queue, accountId, id),

    /** Starts the delivery worker (the worker role). */
    start: worker.start,

    /** Waits for pending enqueues, then stops the delivery worker (see DeliveryWorker.stop). */
    async stop(graceMs?: number): Promise<void> {
      await Promise.allSettled([...enqueues]);
      await worker.stop(graceMs);
    },
  };
}

/**
 * The tasks whose final write, in this process, put them in the outbox (their generation has a
 * callback): the engine's change of only these is looked up for a delivery (a task without a
 * callback, nearly every one, cost every image's end a query). Only this process's engine tells
 * `onTaskChanged`, and an outbox record is written by the final write alone: none is missed.
 */
function outboxRecords(repository: Pick<WebhooksRepository, 'recordFinished'>) {
  const recorded = new Set<string>();
  return {
    async record(trx: Transaction<Database>, task: FinishedTask): Promise<void> {
      if (!(await repository.recordFinished(trx, task))) return;
      recorded.add(task.id);
      // Bounded: an id stays only when its write rolled back after the insert (a hook failed).
      if (recorded.size > MAX_RECORDED) recorded.delete(recorded.values().next().value as string);
    },
    /** True once for a task its final write put in the outbox. */
    taken: (taskId: string): boolean => recorded.delete(taskId),
  };
}

/** Refuses (400 naming callbackUrl) a callbackUrl the outbound policy does not allow. */
async function vetCallbackUrl(fetcher: WebhooksDeps['fetcher'], url: string): Promise<void> {
  try {
    await fetcher.vetUrl(url, 'callbackUrl');
  } catch (error) {
    // A host name that does not resolve is the caller's mistake here too: 400, not 502.
    if (error instanceof DomainError) throw new InvalidInput(error.message, 'callbackUrl');
    throw error;
  }
}

/** A task that just ended: its delivery is enqueued when its generation has a callback. Never rejects. */
async function enqueueOnChange(queue: Enqueueing, change: TaskChange, type: WebhookEventType): Promise<void> {
  try {
    const callback = await queue.repository.callbackForTask(change.record.task_id);
    if (callback)
      await enqueue(queue, change.accountId, change.record, type, callback.url, queue.clock.now());
  } catch (error) {
    // The sweep re-enqueues it later; a task's state never depends on its webhook.
    queue.logger.error({ err: error, taskId: change.record.task_id }, 'could not enqueue a webhook');
  }
}

/** Inserts the delivery of a task's final state; a second call for the same task is a no-op. */
async function enqueue(
  queue: Enqueueing,
  accountId: string,
  record: TaskRecord,
  type: WebhookEventType,
  url: string,
  at: number,
): Promise<void> {
  const payload: WebhookPayload = { type, timestamp: new Date(at).toISOString(), data: record };
  const now = queue.clock.now();
  const inserted = await queue.repository.enqueue({
    id: queue.ids.next('msg'),
    account_id: accountId,
    task_id: record.task_id,
    url,
    type,
    payload: JSON.stringify(payload),
    state: 'pending',
    attempts: 0,
    next_attempt_at: now + (queue.retryScheduleMs[0] ?? 0),
    last_status_code: null,
    last_error: null,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  });
  if (inserted) queue.wake();
}

/** Enqueues what a crash between a task's final write and its enqueue left behind; prunes the outbox. */
async function sweep(queue: Enqueueing): Promise<void> {
  const { repository, clock } = queue;
  await repository.pruneOutbox(clock.now() - SWEEP_WINDOW_MS);
  const missed = await repository.findUnenqueuedFinalTasks(clock.now() - SWEEP_WINDOW_MS, SWEEP_BATCH);
  for (const task of missed) {
    const record = toTaskRecord({ ...task, id: task.task_id });
    const type = eventTypeOf(record);
    if (type) await enqueue(queue, task.account_id, record, type, task.url, task.finished_at ?? clock.now());
  }
  if (missed.length > 0)
    queue.logger.warn({ count: missed.length }, 'enqueued webhook deliveries missed earlier');
}

/** See `redeliver` on the service. */
async function redeliver(queue: Enqueueing, accountId: string, id: string): Promise<DeliveryItem> {
  const { repository } = queue;
  const existing = await repository.findForAccount(accountId, id);
  if (!existing) throw new NotFound('Delivery not found');
  if (!(await repository.restartSeries(accountId, id))) {
    throw new Conflict('An attempt of this delivery is in progress; try again shortly');
  }
  queue.wake();
  const after = await repository.findForAccount(accountId, id);
  return toDeliveryItem(after ?? existing);
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
