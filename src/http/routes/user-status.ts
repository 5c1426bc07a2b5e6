import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { UpstreamKeyResolver } from '../../accounts/accounts-service.js';
import { hasKey } from '../../accounts/has-key.js';
import type { Catalog } from '../../catalog/catalog.js';
import { accountStatusSchema } from '../../contract/accounts.js';
import type { ProviderRegistry } from '../../providers/provider-registry.js';
import { accountOf } from '../authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../route-responses.js';

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
  deps: { catalog: Catalog; providers: ProviderRegistry; keys: UpstreamKeyResolver },
) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/user/status', { schema: userStatusSchema }, async (request) => {
      const account = accountOf(request);
      return { email: account.email, tier: account.tier, has_key: await hasKey(deps, account.id) };
    });
}
