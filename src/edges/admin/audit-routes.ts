import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  type AdminAuditFilter,
  type AuditEventWire,
  adminAuditFilterSchema,
  adminAuditPageSchema,
  adminAuditQuerySchema,
} from '../../base/contract/admin-audit.js';
import type { AuditEvent, AuditFilter } from '../../capabilities/audit/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** An event on the wire. */
export function eventAnswer(event: AuditEvent): AuditEventWire {
  return {
    id: event.id,
    at: event.at,
    actor: event.actor,
    actor_account_id: event.actorAccountId,
    source: event.source,
    action: event.action,
    target_type: event.targetType,
    target_id: event.targetId,
    before: event.before,
    after: event.after,
    request_id: event.requestId,
  };
}

/** The query's filter: empty text filters nothing. */
function filterOf(query: AdminAuditFilter): AuditFilter {
  const { actor, action, target_type, target_id, from, to } = query;
  return {
    ...(actor ? { actor } : {}),
    ...(action ? { action } : {}),
    ...(target_type ? { target_type } : {}),
    ...(target_id ? { target_id } : {}),
    from,
    to,
  };
}

const DESCRIPTION =
  'Every change made through this API, the console or the operator CLI: who (an operator, or cli:<OS user>), when, from where, what (a closed set of actions), to what, and the state before and after; secrets (keys, passwords) are never recorded, only "[redacted]". Append-only: there is no way to change or remove an event.';

/** The audit log: a page of events (keyset paging), and every event as NDJSON. */
export async function adminAuditRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listEvents(api, deps);
  exportEvents(api, deps);
}

/** GET /audit: newest first, filtered, a page at a time. */
function listEvents(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/audit',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'The audit log',
        description: `${DESCRIPTION} Newest first; filtered by actor, action, target and time; the next page is asked with next_cursor.`,
        querystring: adminAuditQuerySchema,
        response: {
          200: jsonResponse('A page of events, newest first', adminAuditPageSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      const page = await deps.audit.list(filterOf(filter), { limit, cursor });
      return { items: page.items.map(eventAnswer), next_cursor: page.nextCursor };
    },
  );
}

/** Each event as one line of JSON, newest first. */
async function* lines(deps: AdminDeps, filter: AuditFilter): AsyncGenerator<string> {
  for await (const event of deps.audit.all(filter)) yield `${JSON.stringify(eventAnswer(event))}\n`;
}

/** GET /audit/export: every event the filter keeps, streamed as NDJSON. */
function exportEvents(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/audit/export',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Export the audit log (NDJSON)',
        description: `${DESCRIPTION} Every event the filters keep, newest first, one JSON object (as the list's items) per line, streamed.`,
        querystring: adminAuditFilterSchema,
        response: {
          200: {
            description: 'One event per line (application/x-ndjson)',
            content: {
              'application/x-ndjson': { schema: z.string().describe('One AdminAuditEvent per line') },
            },
          },
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const stamp = new Date(deps.clock.now()).toISOString().slice(0, 10);
      // A stream, not the string the schema documents: the untyped reply sends it (as the ZIP route does).
      return (reply as FastifyReply)
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="atelier-audit-${stamp}.ndjson"`)
        .send(Readable.from(lines(deps, filterOf(request.query))));
    },
  );
}
