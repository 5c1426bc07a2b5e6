import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { usageQuerySchema, usageReportSchema } from '../../base/contract/usage.js';
import type { UsageService } from '../../capabilities/usage/index.js';
import { accountOf } from '../http/authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

const usageSchema = {
  tags: ['Account'],
  operationId: 'userUsage',
  summary: 'Usage of the account',
  description:
    "Images that ended completed or failed, per UTC day and catalog model, counted as tasks end; and what the tier policy (if the operator set one) leaves of the account's allowance.",
  querystring: usageQuerySchema,
  response: {
    200: jsonResponse('Usage over the range', usageReportSchema),
    ...errorResponses(['invalid_request', ...AUTH_ERRORS]),
  },
};

/** GET /user/usage: the account's images per day and model, and its remaining allowance. */
export async function usageRoutes(app: FastifyInstance, { usage }: { usage: Pick<UsageService, 'report'> }) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/user/usage', { schema: usageSchema }, async (request) =>
      usage.report(accountOf(request), request.query),
    );
}
