import { createWebhookMetrics, createWebhooksService } from './capabilities/webhooks/index.js';
import type { CoreResources } from './core-resources.js';

/** Webhooks: their outbox (written in each task's final write) and the delivery worker. */
export function buildWebhooks(resources: CoreResources) {
  const { db, clock, ids, secrets, fetcher, processOwner, logger, config, timing } = resources;
  return createWebhooksService({
    onAttempt: createWebhookMetrics(resources.metricsRegistry).onAttempt,
    db,
    clock,
    ids,
    secrets,
    fetcher,
    processOwner,
    logger: logger.child({ component: 'webhooks' }),
    tracing: resources.tracing,
    options: {
      retryScheduleMs: config.webhookRetryScheduleMs,
      attemptTimeoutMs: timing.webhookAttemptTimeoutMs,
      idlePollMs: timing.idlePollMs,
    },
  });
}
