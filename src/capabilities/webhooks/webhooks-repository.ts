import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import { createAccountDeliveries, createDeliveryEnqueue, createDeliveryLeases } from './deliveries-store.js';
import { createOutboxStore } from './outbox-store.js';
import { createSecretsStore } from './secrets-store.js';

/**
 * Store queries for webhook secrets, callbacks and deliveries, split by use: the signing secrets
 * (secrets-store.ts), callbacks and the task-finished outbox (outbox-store.ts), the worker's leases
 * and an account's view of its deliveries (deliveries-store.ts).
 */
export function createWebhooksRepository({ db, clock }: { db: Db; clock: Clock }) {
  return {
    ...createOutboxStore(db),
    ...createSecretsStore({ db, clock }),
    enqueue: createDeliveryEnqueue(db),
    ...createDeliveryLeases({ db, clock }),
    ...createAccountDeliveries({ db, clock }),
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
