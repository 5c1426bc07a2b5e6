import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  taskLifeSchema,
  taskLogPageSchema,
  taskLogParamsSchema,
  taskLogQuerySchema,
} from '../../base/contract/admin-tasks.js';
import { ApiError } from '../http/errors.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** GET /tasks and /tasks/{id}: the task log of every account, and one task's life (issue 43). */
export async function adminTaskRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const { taskLog } = deps;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/tasks',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'The task log',
        description:
          "Every task of every account, newest first (created_at, then id), with its cost, queue wait, upstream time, attempts, refusals and fallbacks. Filters combine (all must hold). Pages by a keyset cursor: `next_cursor` names the page's last task, so the next page is the same whatever tasks were created since.",
        querystring: taskLogQuerySchema,
        response: {
          200: jsonResponse('One page of the log', taskLogPageSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => {
      const page = await taskLog.page(request.query);
      if (!page) throw new ApiError('invalid_request', 'cursor is not one this log gave');
      return page;
    },
  );
  typed.get(
    '/tasks/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "One task's life",
        description:
          'Its admission (the generation’s request), where it waits now, each upstream call still kept (upstream_calls rows are pruned after their pool’s window), its moves to next routes, its stored result and its webhook deliveries.',
        params: taskLogParamsSchema,
        response: {
          200: jsonResponse("The task's life", taskLifeSchema),
          ...errorResponses([...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const life = await taskLog.life(request.params.id);
      if (!life) throw new ApiError('not_found', 'No task has this id');
      return life;
    },
  );
}
