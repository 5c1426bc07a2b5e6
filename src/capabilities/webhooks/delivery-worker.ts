import type { Logger } from 'pino';
import { DomainError } from '../../base/domain/errors.js';
import type { TraceContext, Tracing } from '../../base/observability/tracing.js';
import type { Clock } from '../../base/runtime/clock.js';
import { reclaimDeadLeases } from '../../infra/jobs/dead-lease-reclaim.js';
import { createLeaseLoop } from '../../infra/jobs/lease-loop.js';
import type { ProcessOwner } from '../../infra/jobs/process-owner.js';
import type { SafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import type { DeliveryPatch, LeasedDelivery } from './deliveries-store.js';
import { signWebhook } from './signature.js';

export interface DeliveryWorkerOptions {
  /** Delay before each attempt, counted from the previous one (the first from enqueue); its length is the attempt count. */
  retryScheduleMs: readonly number[];
  /** Time limit of one attempt: lookup, connect and the receiver's response headers. */
  attemptTimeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** How long the idle loop sleeps before looking for due deliveries again (other nodes' enqueues). */
  idlePollMs: number;
}

/** An outbox's lease queries (createDeliveryLeases over its table). */
export interface DeliveryLeases<Row extends LeasedDelivery> {
  leaseDue(owner: string, leaseMs: number, limit: number): Promise<Row[]>;
  updateLeased(id: string, owner: string, patch: DeliveryPatch): Promise<boolean>;
  leaseHolders(): Promise<string[]>;
  releaseAll(owner: string): Promise<void>;
  nextDueAt(): Promise<number | undefined>;
}

export interface DeliveryWorkerDeps<Row extends LeasedDelivery> {
  deliveries: DeliveryLeases<Row>;
  /** What the worker is named in logs (`webhook delivery`, `alert delivery`). */
  what?: string;
  /** What outbound errors name the URL as (`callbackUrl`, `url`). */
  subject?: string;
  /** Sends one attempt: vetted again and pinned at call time (DNS may have changed since submit). */
  post: SafeFetcher['postPinned'];
  /** The plaintext `whsec_…` secrets to sign a delivery with (a task's: its account's current one, then a replaced one in its grace). */
  signingSecretsFor(delivery: Row): Promise<string[]>;
  /** Re-enqueues what a crash between a task's final write and its enqueue left behind. */
  sweep?(): Promise<void>;
  clock: Clock;
  owner: string;
  /** This process (the owner id's prefix): a restart on the same host takes back its dead leases. */
  processOwner?: ProcessOwner;
  logger: Logger;
  /** Counts attempts by outcome (delivered, retrying, failed). */
  onAttempt?(outcome: 'delivered' | 'retrying' | 'failed'): void;
  /** Traces: each attempt is a span under the span `traceOf` names (its task's), when there is one. */
  tracing?: Tracing;
  traceOf?(delivery: Row): Promise<TraceContext | undefined>;
  options: DeliveryWorkerOptions;
}

const USER_AGENT = 'Atelier-Webhooks/0.1';
/** How often the worker looks for finished tasks whose delivery was never enqueued. */
const SWEEP_INTERVAL_MS = 60_000;

/** What one attempt came to; a thrown error is reserved for bugs. */
type AttemptOutcome =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'failed'; statusCode: number | null; error: string }
  | { kind: 'interrupted' };

/**
 * The delivery worker: leases due deliveries, signs and POSTs each (Standard Webhooks), and moves
 * it along the retry schedule — any 2xx succeeds; a 3xx (redirects are not followed), 4xx, 5xx,
 * timeout or network error waits for the next slot; after the last slot the delivery is `failed`.
 */
export function createDeliveryWorker<Row extends LeasedDelivery>(deps: DeliveryWorkerDeps<Row>) {
  const { deliveries, clock, owner, logger, options } = deps;
  // The lease outlives any attempt, so a live one means the attempt may still be running.
  const leaseMs = options.attemptTimeoutMs * 2 + 30_000;
  let lastSweepAt = Number.NEGATIVE_INFINITY;
  const what = deps.what ?? 'webhook delivery';
  const workLoop = createLeaseLoop<Row>({
    name: what,
    clock,
    logger,
    concurrency: options.concurrency,
    idlePollMs: options.idlePollMs,
    leaseDue: (limit) => deliveries.leaseDue(owner, leaseMs, limit),
    nextDueAt: () => deliveries.nextDueAt(),
    releaseAll: () => deliveries.releaseAll(owner),
    beforeFirstRound: () =>
      reclaimDeadLeases({
        process: deps.processOwner,
        holders: deliveries.leaseHolders,
        release: deliveries.releaseAll,
        logger,
        what,
      }),
    idOf: (delivery) => delivery.id,
    work: (delivery, controller) => attempt(deps, delivery, controller),
    async beforeRound() {
      if (deps.sweep && clock.now() - lastSweepAt >= SWEEP_INTERVAL_MS) {
        lastSweepAt = clock.now();
        await deps.sweep();
      }
    },
  });
  const wake = workLoop.wake;

  return {
    /** Starts leasing and sending due deliveries (the worker role). */
    start(): void {
      workLoop.start();
    },

    /** Wakes the loop: a delivery was enqueued or made due in this process. */
    wake,

    /**
     * Stops leasing, lets running attempts finish within `graceMs`, interrupts the rest (they do
     * not count), and gives back this worker's leases so a restart sends at once.
     */
    async stop(graceMs = 5000): Promise<void> {
      await workLoop.stop(graceMs);
    },
  };
}

/** Signs and POSTs one attempt of `delivery`; what it came to. */
async function send<Row extends LeasedDelivery>(
  deps: DeliveryWorkerDeps<Row>,
  delivery: Row,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  try {
    const secrets = await deps.signingSecretsFor(delivery);
    const subject = deps.subject ?? 'callbackUrl';
    // The timestamp is the attempt's, not the event's: receivers reject stale ones as replays.
    const timestamp = Math.floor(deps.clock.now() / 1000);
    const { statusCode } = await deps.post(delivery.url, {
      subject,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        // Standard Webhooks: several space-separated signatures; a receiver accepts any it can verify.
        'webhook-signature': secrets
          .map((secret) => signWebhook(secret, delivery.id, timestamp, delivery.payload))
          .join(' '),
      },
      body: delivery.payload,
      timeoutMs: deps.options.attemptTimeoutMs,
      signal,
    });
    if (statusCode >= 200 && statusCode <= 299) return { kind: 'delivered', statusCode };
    const error =
      statusCode >= 300 && statusCode <= 399
        ? `${subject} answered HTTP ${statusCode}, a redirect; redirects are not followed`
        : `${subject} answered HTTP ${statusCode}`;
    return { kind: 'failed', statusCode, error };
  } catch (error) {
    if (signal.aborted) return { kind: 'interrupted' };
    if (error instanceof DomainError) return { kind: 'failed', statusCode: null, error: error.message };
    deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed unexpectedly');
    return { kind: 'failed', statusCode: null, error: 'Internal error while sending the webhook' };
  }
}

/** The delivery's row after an attempt: succeeded, pending its next slot, or failed after the last. */
function patchFor(
  delivery: LeasedDelivery,
  outcome: Exclude<AttemptOutcome, { kind: 'interrupted' }>,
  now: number,
  retryScheduleMs: readonly number[],
) {
  const attempts = delivery.attempts + 1;
  const released = { lease_owner: null, lease_expires_at: null };
  if (outcome.kind === 'delivered') {
    return {
      ...released,
      state: 'succeeded',
      attempts,
      next_attempt_at: null,
      last_status_code: outcome.statusCode,
      last_error: null,
      delivered_at: now,
    } satisfies DeliveryPatch;
  }
  const delay = retryScheduleMs[attempts];
  return {
    ...released,
    state: delay === undefined ? 'failed' : 'pending',
    attempts,
    next_attempt_at: delay === undefined ? null : now + delay,
    last_status_code: outcome.statusCode,
    last_error: outcome.error,
  } satisfies DeliveryPatch;
}

/** Makes one attempt of a leased delivery and records it. Never throws. */
async function attempt<Row extends LeasedDelivery>(
  deps: DeliveryWorkerDeps<Row>,
  delivery: Row,
  controller: AbortController,
): Promise<void> {
  const { deliveries, owner, logger } = deps;
  try {
    const span = await startAttemptSpan(deps, delivery);
    const outcome = await send(deps, delivery, controller.signal);
    if (span) {
      span.set({
        'http.response.status_code':
          outcome.kind === 'interrupted' ? undefined : (outcome.statusCode ?? undefined),
        'atelier.webhook.outcome': outcome.kind,
      });
      if (outcome.kind === 'failed') span.fail(outcome.error, 'webhook_failed');
      span.end(deps.clock.now());
    }
    if (outcome.kind === 'interrupted') {
      // Shutting down: the attempt does not count; give the delivery back for the next worker.
      // The receiver may have seen it already; the unchanged webhook-id lets it deduplicate.
      await deliveries.updateLeased(delivery.id, owner, { lease_owner: null, lease_expires_at: null });
      return;
    }
    const patch = patchFor(delivery, outcome, deps.clock.now(), deps.options.retryScheduleMs);
    deps.onAttempt?.(
      patch.state === 'succeeded' ? 'delivered' : patch.state === 'pending' ? 'retrying' : 'failed',
    );
    if (!(await deliveries.updateLeased(delivery.id, owner, patch))) {
      logger.warn({ deliveryId: delivery.id }, 'webhook lease lost (redelivered meanwhile?); result dropped');
    } else if (patch.state === 'failed') {
      logger.warn({ deliveryId: delivery.id, error: patch.last_error }, 'webhook delivery gave up');
    }
  } catch (error) {
    logger.error(
      { err: error, deliveryId: delivery.id },
      'could not record a webhook attempt; the lease will expire',
    );
  }
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

/** The span of one attempt, under its task's span (tracing on, the task traced); else undefined. */
async function startAttemptSpan<Row extends LeasedDelivery>(deps: DeliveryWorkerDeps<Row>, delivery: Row) {
  if (!deps.tracing?.enabled || !deps.traceOf) return undefined;
  const parent = await deps.traceOf(delivery);
  if (!parent) return undefined;
  return deps.tracing.start(
    deps.what ?? 'webhook delivery',
    parent,
    {
      'atelier.delivery_id': delivery.id,
      'atelier.webhook.attempt': delivery.attempts + 1,
      'http.request.method': 'POST',
      'server.address': hostOf(delivery.url),
    },
    { kind: 'client', startAt: deps.clock.now() },
  );
}

/** The host of a URL (never its path or query: they may hold a receiver's token). */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
