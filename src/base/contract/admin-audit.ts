/**
 * The wire shapes of the audit log in the operator console's API (`/api/admin/v1/audit`): every
 * change an operator made through the admin API or the console, and every change made with the
 * operator CLI, with who, when, what and the state before and after (secrets never included).
 */
import { z } from 'zod';
import { integerQuery } from './paging.js';

/**
 * Where a change came from: the admin API (an API key), the console (a website session), the CLI,
 * or a file read at a start (ATELIER_POLICY_FILE seeding or replacing the tier policies in the store).
 */
export const AUDIT_SOURCES = ['admin-api', 'website', 'cli', 'file'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/**
 * Every change the admin API and the operator CLI can make, one name each (a closed set): the
 * admin API's routes and the CLI's commands that write are each recorded under one of these.
 */
export const AUDIT_ACTIONS = [
  'account.create', // POST /accounts; accounts create
  'account.update', // PATCH /accounts/:id (tier, disabled); accounts set-tier, disable, enable
  'account.set-operator', // accounts set-operator
  'account.export', // GET /accounts/:id/export; the account page's export; accounts export
  'account.erase', // POST /accounts/:id/erase; the account page's erase; accounts erase
  'password.reset', // POST /accounts/:id/password; accounts set-password
  'password.set', // accounts set-password --permanent
  'budget.set', // PUT /accounts/:id/budget; accounts set-budget
  'retention.set', // PUT /accounts/:id/retention (an account's own retention periods)
  'key.create', // POST /accounts/:id/keys; keys create
  'key.revoke', // DELETE /accounts/:id/keys/:key_id; keys revoke
  'key.rotate', // accounts rotate-key
  'key.budget.set', // PUT /accounts/:id/keys/:key_id/budget; accounts set-budget --key
  'key.retention.set', // PUT /accounts/:id/keys/:key_id/retention; keys set-retention
  'webhook-secret.rotate', // accounts rotate-webhook-secret
  'upstream-key.set', // accounts set-upstream-key (an account's own upstream key)
  'provider-key.add', // POST /provider-keys; upstream-keys add
  'provider-key.update', // PATCH /provider-keys/:provider/:name; upstream-keys update, enable, disable
  'provider-key.remove', // DELETE /provider-keys/:provider/:name; upstream-keys remove
  'policy.replace', // PUT /policies (the whole tier policy document)
  'policy.tier.update', // PATCH /policies/tiers/:tier (one tier's limits)
  'policy.import', // a start that seeds the store from ATELIER_POLICY_FILE, or imports a changed file
  'queue.cancel', // POST /queue/cancel (one task, an account's tasks, or a route's)
  'alert.create', // POST /alerts
  'alert.update', // PATCH /alerts/:id
  'alert.delete', // DELETE /alerts/:id
  'alert.test', // POST /alerts/:id/test
  'catalog.update', // PUT /catalog, PATCH /catalog/models/:id; catalog import (a new version of the catalog)
  'catalog.import', // a start that found the catalog file changed (or seeded the store from it)
  'catalog.route.test', // POST /catalog/routes/:route_id/test (one real upstream request)
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a change was made to. */
export const AUDIT_TARGET_TYPES = [
  'account',
  'api-key',
  'provider-key',
  'tier-policy',
  'task',
  'route',
  'alert-rule',
  'catalog',
  'catalog-route',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

const jsonState = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe(
    'The state as it was (before) or became (after); null when there was none; secrets as "[redacted]"',
  );

export const auditEventSchema = z
  .object({
    id: z.string().describe('aud_…'),
    at: z.number().int().describe('When, epoch milliseconds'),
    actor: z
      .string()
      .describe(
        'Who: the operator account (its e-mail), "cli:<OS user>" for the CLI, "file:<path>" for a start that read ATELIER_POLICY_FILE',
      ),
    actor_account_id: z.string().nullable().describe("The operator's account id; null for the CLI"),
    source: z.enum(AUDIT_SOURCES),
    action: z.enum(AUDIT_ACTIONS),
    target_type: z.enum(AUDIT_TARGET_TYPES),
    target_id: z
      .string()
      .describe(
        'acc_…, key_…, <provider>/<name> for an upstream pool key; for the tier policies, the tier, or "tiers" for the whole document; tsk_…, or <provider>/<upstreamModel> for a route (a queue cancel, a catalog route test); alr_… (an alert rule); "catalog"',
      ),
    before: jsonState,
    after: jsonState,
    request_id: z.string().nullable().describe('The HTTP request id (null for the CLI)'),
  })
  .meta({ id: 'AdminAuditEvent' });

/** The filters of the list and of the export. */
export const adminAuditFilterSchema = z.object({
  actor: z.string().max(320).optional().describe('Exactly this actor (an e-mail, or cli:<user>)'),
  action: z.enum(AUDIT_ACTIONS).optional(),
  target_type: z.enum(AUDIT_TARGET_TYPES).optional(),
  target_id: z.string().max(200).optional(),
  from: integerQuery({ fallback: 0, min: 0 }).describe('At or after this time (epoch ms)'),
  to: integerQuery({ fallback: Number.MAX_SAFE_INTEGER, min: 0 }).describe('Before this time (epoch ms)'),
});

export const adminAuditQuerySchema = adminAuditFilterSchema.extend({
  limit: integerQuery({ fallback: 50, min: 1, max: 200 }).describe('Page size; default 50, at most 200'),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("The previous page's next_cursor: the events older than its last"),
});

export const adminAuditPageSchema = z
  .object({
    items: z.array(auditEventSchema).describe('Newest first'),
    next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
  })
  .meta({ id: 'AdminAuditPage' });

export type AuditEventWire = z.output<typeof auditEventSchema>;
export type AdminAuditFilter = z.output<typeof adminAuditFilterSchema>;
