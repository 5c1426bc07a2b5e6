import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminAccountParamsSchema, adminSecurity } from '../../base/contract/admin.js';
import { adminRetentionBodySchema, adminRetentionSchema } from '../../base/contract/admin-retention.js';
import type { AccountRetention } from '../../use-cases/lifecycle/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { requireEntry } from './account-answers.js';
import { ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

const wire = (retention: AccountRetention | undefined) => ({
  results_days: retention?.resultsDays ?? null,
  uploads_days: retention?.uploadsDays ?? null,
});

/** PUT /accounts/:id/retention: how long an account's results and uploads are kept. */
export async function adminAccountRetentionRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().put(
    '/accounts/:id/retention',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Set retention periods',
        description:
          "Sets how many days the account's results (works) and uploads are kept: a number sets one, null removes it, absent leaves it. The shortest retention that applies (account, API key, tier policy, deployment) wins; past it, the lifecycle housekeeping removes the works and uploads with their files (410 gone).",
        params: adminAccountParamsSchema,
        body: adminRetentionBodySchema,
        response: {
          200: jsonResponse("The account's retention as set", adminRetentionSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      await requireEntry(deps, id);
      const { results_days, uploads_days } = request.body;
      const before = wire(await deps.retention.get(id));
      await deps.retention.set(id, {
        ...(results_days === undefined ? {} : { resultsDays: results_days }),
        ...(uploads_days === undefined ? {} : { uploadsDays: uploads_days }),
      });
      const after = wire(await deps.retention.get(id));
      await audited(deps, request, {
        action: 'retention.set',
        target: { type: 'account', id },
        before,
        after,
      });
      return after;
    },
  );
}
