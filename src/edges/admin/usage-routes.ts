import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity, adminUsageSchema, usageQuerySchema } from '../../base/contract/admin.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** GET /usage: the usage of every account over a range of days, busiest account first. */
export async function adminUsageRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const { usage, directory } = deps;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/usage',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Usage of every account',
        description:
          'Images completed and failed over a range of UTC days (default the last 30, at most 366): per day and model, per model, and per account with its models.',
        querystring: usageQuerySchema,
        response: {
          200: jsonResponse('Usage over the range', adminUsageSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => {
      const report = await usage.accountsReport(request.query);
      const emails = await directory.emailsOf(report.accounts.map((row) => row.accountId));
      const accounts = report.accounts
        .map(({ accountId, ...counts }) => ({
          id: accountId,
          email: emails.get(accountId) ?? null,
          ...counts,
        }))
        .sort((a, b) => b.completed + b.failed - (a.completed + a.failed) || (a.id < b.id ? -1 : 1));
      return { ...report, currency: 'USD' as const, accounts };
    },
  );
}
