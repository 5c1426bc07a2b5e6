import type { DeliveryState } from '../../../base/domain/delivery-states.js';
import type { WebhookEventType } from '../../../base/domain/webhook-events.js';
import type { TasksTable } from './tasks.js';

/** The tables of webhooks (src/capabilities/webhooks): signing secrets, callbacks, deliveries and the outbox. */

/** An account's Standard Webhooks signing secret (`whsec_…`), sealed with the master key. */
export interface WebhookSecretsTable {
  account_id: string;
  ciphertext: string;
  created_at: number;
  /** The secret the last rotation replaced, sealed; deliveries carry its signature too until it expires. */
  previous_ciphertext: string | null;
  previous_expires_at: number | null;
}

/** The callbackUrl given with a generate request: every task of the generation reports there. */
export interface WebhookCallbacksTable {
  generation_id: string;
  account_id: string;
  url: string;
  created_at: number;
}

/** One webhook message (`msg_…`) for a task's final state, and where its delivery stands. */
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  task_id: string;
  url: string;
  type: WebhookEventType;
  /** The exact JSON body that is signed and sent, the same on every attempt. */
  payload: string;
  state: DeliveryState;
  /** Attempts made in the current series (a redeliver starts a new series). */
  attempts: number;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/**
 * The webhooks' outbox: the finished record of a task whose generation has a callback, written by
 * the write that ended the task (same transaction). Deliveries are built from it, not from `tasks`;
 * kept for the sweep's window (a delivery never enqueued is found from here), then pruned.
 */
export interface WebhookOutboxTable {
  task_id: string;
  generation_id: string;
  account_id: string;
  status: TasksTable['status'];
  progress: number;
  image_url: string | null;
  error: string | null;
  width: number | null;
  height: number | null;
  content_type: string | null;
  bytes: number | null;
  provider: string;
  finished_at: number | null;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface WebhookTables {
  webhook_secrets: WebhookSecretsTable;
  webhook_callbacks: WebhookCallbacksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_outbox: WebhookOutboxTable;
}
