import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  adminAccountParamsSchema,
  adminSecurity,
  operatorUsageReportSchema,
  usageQuerySchema,
} from '../../base/contract/admin.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { requireEntry } from './account-answers.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** GET /accounts/:id/usage: one account's usage, as the account itself reads it, with what was absorbed. */
export async function adminAccountUsageRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/accounts/:id/usage',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "An account's usage",
        description:
          "Images completed and failed per UTC day and model, and what the account's tier policy leaves: the report the account itself reads at GET /api/v1/user/usage, with absorbed_micros (what upstreams billed beyond its quotes' maxima, absorbed by the operator) beside each cost_micros.",
        params: adminAccountParamsSchema,
        querystring: usageQuerySchema,
        response: {
          200: jsonResponse('Usage over the range', operatorUsageReportSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const entry = await requireEntry(deps, request.params.id);
      return deps.usage.report({ id: entry.id, tier: entry.tier }, request.query);
    },
  );
}
