import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { accountStatusSchema } from '../../base/contract/accounts.js';
import type { SpendConfirmations, UpstreamAccess } from '../../capabilities/accounts/index.js';
import { accountOf } from '../http/authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../http/route-responses.js';

const userStatusSchema = {
  tags: ['Account'],
  operationId: 'userStatus',
  summary: 'Account status',
  response: {
    200: jsonResponse('The account', accountStatusSchema),
    ...errorResponses(AUTH_ERRORS),
  },
};

/** GET /user/status (spec §2.7). */
export async function userStatusRoutes(
  app: FastifyInstance,
  {
    upstreamAccess,
    spendConfirmations,
  }: { upstreamAccess: Pick<UpstreamAccess, 'hasKey'>; spendConfirmations: Pick<SpendConfirmations, 'of'> },
) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/user/status', { schema: userStatusSchema }, async (request) => {
      const account = accountOf(request);
      const [hasKey, spendConfirmation] = await Promise.all([
        upstreamAccess.hasKey(account.id),
        spendConfirmations.of(account.id),
      ]);
      return {
        email: account.email,
        tier: account.tier,
        has_key: hasKey,
        spend_confirmation: spendConfirmation,
      };
    });
}
