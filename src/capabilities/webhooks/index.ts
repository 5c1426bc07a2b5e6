// The webhooks capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/webhooks/ import from this file only (src/architecture.test.ts holds it).

// The delivery machinery other outboxes (alerts) reuse: leasing, signed attempts and retries.
export type { LeasedDelivery, OutboxTable } from './deliveries-store.js';
export { createDeliveryLeases } from './deliveries-store.js';
export type { DeliveryWorker, DeliveryWorkerOptions } from './delivery-worker.js';
export { createDeliveryWorker } from './delivery-worker.js';
export { generateWebhookSecret } from './signature.js';
export { createWebhookMetrics } from './webhook-metrics.js';
export type { WebhooksService } from './webhooks-service.js';
export { createWebhooksService } from './webhooks-service.js';
