import { z } from 'zod';
import { DELIVERY_STATES } from '../domain/delivery-states.js';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhook-events.js';
import { pageOf, pageQuery } from './paging.js';
import { taskRecordSchema } from './tasks.js';

export const MAX_DELIVERIES_LIMIT = 50;

export const webhookSecretSchema = z
  .object({ secret: z.string().describe('whsec_… — the HMAC key of the Standard Webhooks signatures') })
  .meta({ id: 'WebhookSecret', description: 'Webhook signing secret' });

/** Seconds the replaced secret keeps signing after a rotation: default 24 h, at most 7 days. */
export const ROTATION_GRACE = { defaultSeconds: 24 * 60 * 60, maxSeconds: 7 * 24 * 60 * 60 } as const;

export const webhookSecretRotateBodySchema = z
  .object({
    grace_seconds: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(0, { error: `must be between 0 and ${ROTATION_GRACE.maxSeconds}` })
      .max(ROTATION_GRACE.maxSeconds, { error: `must be between 0 and ${ROTATION_GRACE.maxSeconds}` })
      .nullish()
      .describe(
        `How long the replaced secret keeps signing deliveries beside the new one, in seconds: default ${ROTATION_GRACE.defaultSeconds} (24 h), 0 stops it at once (a leaked secret), at most ${ROTATION_GRACE.maxSeconds} (7 days)`,
      ),
  })
  .nullish()
  .meta({ id: 'WebhookSecretRotation' });

export const webhookSecretRotatedSchema = z
  .object({
    secret: z.string().describe('The new whsec_… secret: deliveries are signed with it from now on'),
    previous_secret_expires_at: z
      .number()
      .int()
      .nullable()
      .describe(
        'Until when (epoch ms) deliveries also carry a signature made with the replaced secret; null when they no longer do',
      ),
  })
  .meta({ id: 'WebhookSecretRotated', description: 'The new webhook signing secret' });
export type WebhookSecretRotated = z.infer<typeof webhookSecretRotatedSchema>;

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
