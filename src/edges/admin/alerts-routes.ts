import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  alertDeliveriesQuerySchema,
  alertDeliveriesSchema,
  alertDeliverySchema,
  alertIdParamsSchema,
  alertRuleSchema,
  alertRulesSchema,
  createAlertSchema,
  createdAlertSchema,
  updateAlertSchema,
} from '../../base/contract/admin-alerts.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

const KINDS =
  'upstream.breaker_open (an upstream circuit breaker opened), key_pool.key_removed (a pooled upstream key taken out), budget.threshold (an account budget crossed a percent), tasks.failure_rate (a route failed above a rate)';

const target = (id: string) => ({ type: 'alert-rule' as const, id });

/** Alert rules (one webhook per kind of event), their test message and recent deliveries. */
export async function adminAlertRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listRules(api, deps);
  listDeliveries(api, deps);
  createRule(api, deps);
  changeRule(api, deps);
  deleteRule(api, deps);
  testRule(api, deps);
}

/** GET /alerts: every rule. */
function listRules(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/alerts',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Every alert rule',
        description: `Kinds: ${KINDS}. A rule's signing secret is never answered after its creation.`,
        response: {
          200: jsonResponse('The rules, oldest first', alertRulesSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => ({ rules: await deps.alerts.list() }),
  );
}

/** GET /alerts/deliveries: the newest deliveries. */
function listDeliveries(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/alerts/deliveries',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Recent alert deliveries',
        description:
          'The 50 newest alert messages (of one rule with rule_id), newest first, each with its state (pending, succeeded, failed), attempts, last answer and next retry.',
        querystring: alertDeliveriesQuerySchema,
        response: {
          200: jsonResponse('The deliveries, newest first', alertDeliveriesSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => ({ deliveries: await deps.alerts.deliveries(request.query.rule_id) }),
  );
}

/** POST /alerts: a rule created; its secret answered once. */
function createRule(api: ZodApp, deps: AdminDeps) {
  api.post(
    '/alerts',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Create an alert rule',
        description: `Kinds: ${KINDS}. Messages are signed like task webhooks (Standard Webhooks) with the rule's own secret, answered here once; format slack posts a Slack incoming webhook's { text, blocks }.`,
        body: createAlertSchema,
        response: {
          201: jsonResponse('The rule, with its signing secret (shown once)', createdAlertSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const created = await deps.alerts.create(request.body);
      const { secret: _secret, ...after } = created;
      await audited(deps, request, {
        action: 'alert.create',
        target: target(created.id),
        before: null,
        after,
      });
      reply.code(201);
      return created;
    },
  );
}

/** PATCH /alerts/:id: a rule changed. */
function changeRule(api: ZodApp, deps: AdminDeps) {
  api.patch(
    '/alerts/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Change an alert rule: URL, format, thresholds, enabled',
        description:
          'Absent fields stay; params replaces the thresholds as a whole. Every node applies it within a second.',
        params: alertIdParamsSchema,
        body: updateAlertSchema,
        response: {
          200: jsonResponse('The rule as changed', alertRuleSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { before, after } = await deps.alerts.update(request.params.id, request.body);
      await audited(deps, request, { action: 'alert.update', target: target(after.id), before, after });
      return after;
    },
  );
}

/** DELETE /alerts/:id: a rule removed with its deliveries. */
function deleteRule(api: ZodApp, deps: AdminDeps) {
  api.delete(
    '/alerts/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Delete an alert rule',
        description: 'The rule, its secret and its deliveries (pending ones are not sent) are removed.',
        params: alertIdParamsSchema,
        response: {
          200: jsonResponse('The rules left', alertRulesSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const before = await deps.alerts.remove(request.params.id);
      await audited(deps, request, {
        action: 'alert.delete',
        target: target(before.id),
        before,
        after: null,
      });
      return { rules: await deps.alerts.list() };
    },
  );
}

/** POST /alerts/:id/test: a test message sent through a rule. */
function testRule(api: ZodApp, deps: AdminDeps) {
  api.post(
    '/alerts/:id/test',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Send a test alert',
        description:
          'Enqueues a message of type "test" to the rule\'s URL, signed and retried like every alert (also when the rule is disabled); answers its delivery, which GET /alerts/deliveries follows.',
        params: alertIdParamsSchema,
        response: {
          202: jsonResponse('The test message, enqueued', alertDeliverySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const delivery = await deps.alerts.test(request.params.id);
      await audited(deps, request, {
        action: 'alert.test',
        target: target(request.params.id),
        before: null,
        after: { delivery_id: delivery.id },
      });
      reply.code(202);
      return delivery;
    },
  );
}
