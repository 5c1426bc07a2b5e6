import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  type AdminQueue,
  type AdminQueueCancel,
  adminQueueCanceledSchema,
  adminQueueCancelSchema,
  adminQueueSchema,
} from '../../base/contract/admin-queue.js';
import { NotFound } from '../../base/domain/errors.js';
import type { QueueCancelScope } from '../../capabilities/tasks/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

/** GET /queue and POST /queue/cancel: what waits per route and pool, and why; the operator's cancel. */
export async function adminQueueRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  readQueue(api, deps);
  cancelQueued(api, deps);
}

/** GET /queue. */
function readQueue(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/queue',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'The queue per route and key pool',
        description:
          "Every route with unfinished tasks or a capacity pool, from the store (every node's tasks): tasks waiting (for a slot of a pool, for a worker's fair turn, for a retry) and in flight (held by a worker, accepted upstream), each pool's limits, calls and what holds it now and until when, and each account's share of the waiting and of the next fair turns. Circuit breakers are the answering node's.",
        response: {
          200: jsonResponse('The queue now', adminQueueSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => {
      const [queue, keys] = await Promise.all([deps.queue.view(), deps.providerKeys.states()]);
      const emails = await deps.directory.emailsOf(accountIdsOf(queue));
      const keyNames = new Map<string, string[]>();
      for (const key of keys) {
        const at = `${key.provider}:${key.pool}`;
        keyNames.set(at, [...(keyNames.get(at) ?? []), key.name]);
      }
      for (const route of queue.routes) {
        withCircuit(deps, route);
        for (const account of route.accounts) account.email = emails.get(account.account_id) ?? null;
        for (const pool of route.pools) {
          pool.key_names = keyNames.get(`${route.provider}:${pool.key}`) ?? [];
          for (const account of pool.accounts) account.email = emails.get(account.account_id) ?? null;
        }
      }
      return queue;
    },
  );
}

/** Every account the queue names. */
function accountIdsOf(queue: AdminQueue): string[] {
  const ids = new Set<string>();
  for (const route of queue.routes) {
    for (const account of route.accounts) ids.add(account.account_id);
    for (const pool of route.pools) for (const account of pool.accounts) ids.add(account.account_id);
  }
  return [...ids];
}

/** The route's provider's circuit on this node, and its hold while open. */
function withCircuit(deps: AdminDeps, route: AdminQueue['routes'][number]): void {
  const circuit = deps.providers.get(route.provider)?.circuit?.();
  if (!circuit) return;
  route.circuit = { state: circuit.state, probe_in_ms: Math.max(0, Math.round(circuit.msUntilProbe)) };
  if (circuit.state === 'open')
    route.hold = {
      reason: 'circuit_open',
      until: deps.clock.now() + Math.max(0, Math.round(circuit.msUntilProbe)),
    };
}

/** The scope of a cancel body (exactly one of its three is set: the schema holds it). */
function scopeOf(body: AdminQueueCancel): QueueCancelScope {
  if (body.task_id !== undefined) return { kind: 'task', taskId: body.task_id };
  if (body.account_id !== undefined) return { kind: 'account', accountId: body.account_id };
  return { kind: 'route', routeId: body.route ?? '' };
}

/** POST /queue/cancel. */
function cancelQueued(api: ZodApp, deps: AdminDeps) {
  api.post(
    '/queue/cancel',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Cancel queued tasks',
        description:
          'Exactly one of `task_id` (one task of any account), `account_id` (its tasks on every route) or `route` (`provider/upstreamModel`, every account\'s tasks on it); `status` queued (default: tasks whose status is queued) or unfinished (in_progress ones too). Each task ends failed with the error "Canceled by an operator", as its caller sees it through /api/v1 and its webhook; the cancel is recorded in the audit log with its scope and count.',
        body: adminQueueCancelSchema,
        response: {
          200: jsonResponse('How many tasks were canceled', adminQueueCanceledSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request.body);
      const { status } = request.body;
      if (scope.kind === 'account' && !(await deps.directory.entry(scope.accountId)))
        throw new NotFound('Account not found');
      const canceled = await deps.queue.cancel(scope, status);
      const target =
        scope.kind === 'task' ? scope.taskId : scope.kind === 'account' ? scope.accountId : scope.routeId;
      await audited(deps, request, {
        action: 'queue.cancel',
        target: { type: scope.kind, id: target },
        before: null,
        after: { scope: scope.kind, status, canceled, error: deps.queue.error },
      });
      return { scope: scope.kind, target, status, canceled, error: deps.queue.error };
    },
  );
}
