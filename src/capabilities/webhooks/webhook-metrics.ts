import { Counter, type Registry } from 'prom-client';

/** Webhook delivery attempts by outcome (this node's): what the delivery worker's `onAttempt` counts. */
export function createWebhookMetrics(registry: Registry) {
  const attempts = new Counter({
    name: 'atelier_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, retrying, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return {
    onAttempt(outcome: 'delivered' | 'retrying' | 'failed'): void {
      attempts.inc({ outcome });
    },
  };
}
