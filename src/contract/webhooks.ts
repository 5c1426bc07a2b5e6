import { z } from 'zod';
import { pageOf, pageQuery } from './paging.js';
import { taskRecordSchema } from './tasks.js';

export const MAX_DELIVERIES_LIMIT = 50;
export const WEBHOOK_EVENT_TYPES = ['task.completed', 'task.failed'] as const;
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;

export const webhookSecretSchema = z
  .object({ secret: z.string().describe('whsec_… — the HMAC key of the Standard Webhooks signatures') })
  .meta({ id: 'WebhookSecret', description: 'Webhook signing secret' });

/** A delivery as GET /webhooks/deliveries lists it; times are epoch milliseconds like history's. */
export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('msg_… — also the webhook-id header, the same on every attempt'),
    task_id: z.string(),
    url: z.string(),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    state: z.enum(DELIVERY_STATES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.number().int().nullable(),
    created_at: z.number().int(),
    delivered_at: z.number().int().nullable(),
  })
  .meta({ id: 'WebhookDelivery', description: 'Webhook delivery' });

export type DeliveryItem = z.output<typeof webhookDeliverySchema>;

export const webhookDeliveriesPageSchema = pageOf(webhookDeliverySchema).meta({
  id: 'WebhookDeliveries',
  description: 'Webhook deliveries page',
});

export const deliveriesQuerySchema = z.object(pageQuery(MAX_DELIVERIES_LIMIT));
export const deliveryIdParamsSchema = z.object({ id: z.string().describe('Delivery id (msg_…)') });

/**
 * What Atelier POSTs to a generate request's callbackUrl when each task ends (Standard Webhooks
 * envelope): `data` is the task record exactly as GET /tasks/{id} answers.
 */
export const webhookPayloadSchema = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    timestamp: z.string().describe('ISO 8601 time of the event'),
    data: taskRecordSchema,
  })
  .meta({ id: 'WebhookPayload', description: 'Webhook payload' });

export type WebhookPayload = z.output<typeof webhookPayloadSchema>;
