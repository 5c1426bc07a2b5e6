/**
 * The wire shapes of alerts in the operator console's API (`/api/admin/v1/alerts`): rules (one
 * webhook for one kind of event, signed like task webhooks with the rule's own secret), their test
 * message, and the recent deliveries with their attempts.
 */
import { z } from 'zod';
import { DELIVERY_STATES } from '../domain/delivery-states.js';

/** What an alert can be about. */
export const ALERT_KINDS = [
  'upstream.breaker_open', // an upstream's circuit breaker opened (too many failures in a row)
  'key_pool.key_removed', // a pooled upstream key was taken out of service (invalid key, no quota)
  'budget.threshold', // an account's daily or monthly spend crossed a percent of its budget
  'tasks.failure_rate', // a route's tasks failed above a rate over a window
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** `standard`: the event's JSON; `slack`: a Slack incoming webhook's `{ text, blocks }`. */
export const ALERT_FORMATS = ['standard', 'slack'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

/** The thresholds of each kind, every field optional on input (the defaults below apply). */
export const alertParamsSchema = z.object({
  thresholds: z
    .array(z.number().int('must be a whole number').min(1).max(1000))
    .min(1)
    .max(10)
    .optional()
    .describe('budget.threshold: the percents of a budget that alert when crossed (default [80, 100])'),
  rate: z
    .number()
    .gt(0, 'must be above 0')
    .max(1, 'must be at most 1')
    .optional()
    .describe('tasks.failure_rate: the failed share of finished tasks that alerts (default 0.5)'),
  min_count: z
    .number()
    .int('must be a whole number')
    .min(1)
    .max(100_000)
    .optional()
    .describe('tasks.failure_rate: failures in the window needed before it alerts (default 10)'),
  window_seconds: z
    .number()
    .int('must be a whole number')
    .min(60)
    .max(86_400)
    .optional()
    .describe('tasks.failure_rate: the window, over tasks created in it (default 600)'),
});
export type AlertParams = z.infer<typeof alertParamsSchema>;

/** The thresholds in force for a rule: its own, else these. */
export const ALERT_DEFAULTS = { thresholds: [80, 100], rate: 0.5, min_count: 10, window_seconds: 600 };

const urlSchema = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]/, 'must be an absolute http or https URL')
  .meta({ format: 'uri' })
  .describe('Where alerts are POSTed (http or https; a public address unless allowed by the operator)');

export const createAlertSchema = z.object({
  kind: z.enum(ALERT_KINDS),
  url: urlSchema,
  format: z.enum(ALERT_FORMATS).optional().describe('standard (default) or slack'),
  params: alertParamsSchema.optional(),
  enabled: z.boolean().optional().describe('default true'),
});

export const updateAlertSchema = z.object({
  url: urlSchema.optional(),
  format: z.enum(ALERT_FORMATS).optional(),
  params: alertParamsSchema.optional().describe('Replaces the rule thresholds'),
  enabled: z.boolean().optional(),
});

export const alertIdParamsSchema = z.object({ id: z.string().min(1).max(64).describe('alr_…') });

export const alertRuleSchema = z
  .object({
    id: z.string().describe('alr_…'),
    kind: z.enum(ALERT_KINDS),
    url: z.string(),
    format: z.enum(ALERT_FORMATS),
    params: alertParamsSchema.describe("The rule's thresholds as set (defaults apply to what is absent)"),
    enabled: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .describe('An alert rule; its signing secret is answered only when it is created');

export const createdAlertSchema = alertRuleSchema.extend({
  secret: z.string().describe("The rule's Standard Webhooks signing secret (whsec_…); never shown again"),
});

export const alertRulesSchema = z.object({ rules: z.array(alertRuleSchema) });

export const alertDeliverySchema = z.object({
  id: z.string().describe('alm_…: the webhook-id header, the same on every attempt'),
  rule_id: z.string(),
  kind: z.enum(ALERT_KINDS).or(z.literal('test')),
  url: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.number().int().nullable().describe('When the next attempt is due (pending only)'),
  created_at: z.number().int(),
  delivered_at: z.number().int().nullable(),
});
export type AlertDelivery = z.infer<typeof alertDeliverySchema>;

export const alertDeliveriesSchema = z.object({ deliveries: z.array(alertDeliverySchema) });

export const alertDeliveriesQuerySchema = z.object({
  rule_id: z.string().max(64).optional().describe("Only this rule's deliveries"),
});

export type AlertRuleWire = z.infer<typeof alertRuleSchema>;
export type CreatedAlertWire = z.infer<typeof createdAlertSchema>;
export type AlertRulesWire = z.infer<typeof alertRulesSchema>;
export type AlertDeliveriesWire = z.infer<typeof alertDeliveriesSchema>;
