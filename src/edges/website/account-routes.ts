import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  accountInfoSchema,
  upstreamKeyBodySchema,
  upstreamKeyParamsSchema,
  usageQuerySchema,
  usageReportSchema,
  WEBSITE_TAG,
  websiteSession,
} from '../../base/contract/website.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';

/** The account page's settings: profile and upstream access, usage, own upstream keys (credentials: credential-routes). */
export async function accountRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, upstreamAccess } = services;

  api.get(
    '/account',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Account settings',
        description:
          'Profile, has_key, the API key hint, the base URL, and for each provider that takes a key whether the account or the deployment holds one (keys are never shown back).',
        security: websiteSession,
        response: {
          200: jsonResponse('Account settings', accountInfoSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => {
      const account = accountOf(request);
      const [hasKey, apiKeyHint, upstream] = await Promise.all([
        upstreamAccess.hasKey(account.id),
        accounts.apiKeyHint(account.id),
        upstreamAccess.overview(account.id),
      ]);
      return {
        email: account.email,
        tier: account.tier,
        has_key: hasKey,
        api_key_hint: apiKeyHint ?? null,
        base_url: services.publicBaseUrl,
        upstream,
      };
    },
  );

  api.get(
    '/account/usage',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Usage of the account',
        description:
          'Images completed and failed per UTC day and model, and what the tier policy leaves (the report of GET /api/v1/user/usage).',
        security: websiteSession,
        querystring: usageQuerySchema,
        response: {
          200: jsonResponse('Usage over the range', usageReportSchema),
          ...errorResponses(['invalid_request', 'unauthorized']),
        },
      },
    },
    async (request) => services.usage.report(accountOf(request), request.query),
  );

  api.put(
    '/account/upstream-keys/:provider',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Set an own upstream key',
        description:
          "Stores the account's own key for a provider, sealed at rest; it replaces any earlier one.",
        security: websiteSession,
        params: upstreamKeyParamsSchema,
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

  api.delete(
    '/account/upstream-keys/:provider',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Remove an own upstream key',
        description:
          "Removes the account's own key for a provider (the deployment's, if any, applies again).",
        security: websiteSession,
        params: upstreamKeyParamsSchema,
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
