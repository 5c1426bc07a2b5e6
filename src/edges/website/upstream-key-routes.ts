import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { upstreamKeyBodySchema, upstreamKeyParamsSchema } from '../../base/contract/website/account.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';

/** The account's own upstream keys (the account page): set one, remove one. */
export function upstreamKeyRoutes(app: FastifyInstance, services: WebsiteServices) {
  setUpstreamKeyRoute(app, services);
  removeUpstreamKeyRoute(app, services);
}

/** PUT /account/upstream-keys/:provider: the account's own key, sealed at rest. */
function setUpstreamKeyRoute(app: FastifyInstance, services: WebsiteServices) {
  const { accounts, upstreamAccess } = services;
  app.withTypeProvider<ZodTypeProvider>().put(
    '/account/upstream-keys/:provider',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Set an own upstream key',
        description:
          "Stores the account's own key for a provider, sealed at rest; it replaces any earlier one.",
        security: websiteSession,
        params: upstreamKeyParamsSchema(upstreamAccess.keyedProviders()),
        body: upstreamKeyBodySchema,
        // 400: a provider that takes no key, or a malformed key.
        response: {
          204: noContent('Stored'),
          ...errorResponses([
            'invalid_request',
            'unauthorized',
            'forbidden',
            'request_timeout',
            'payload_too_large',
          ]),
        },
      },
    },
    async (request, reply) => {
      const provider = upstreamAccess.requireKeyedProvider(request.params.provider);
      await accounts.setUpstreamKey(accountOf(request).id, provider, request.body.key);
      return reply.code(204).send(null);
    },
  );
}

/** DELETE /account/upstream-keys/:provider: the deployment's key applies again. */
function removeUpstreamKeyRoute(app: FastifyInstance, services: WebsiteServices) {
  const { accounts, upstreamAccess } = services;
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/account/upstream-keys/:provider',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Remove an own upstream key',
        description:
          "Removes the account's own key for a provider (the deployment's, if any, applies again).",
        security: websiteSession,
        params: upstreamKeyParamsSchema(upstreamAccess.keyedProviders()),
        // 400: a provider that takes no key.
        response: {
          204: noContent('Removed'),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden']),
        },
      },
    },
    async (request, reply) => {
      const provider = upstreamAccess.requireKeyedProvider(request.params.provider);
      await accounts.setUpstreamKey(accountOf(request).id, provider, '');
      return reply.code(204).send(null);
    },
  );
}
