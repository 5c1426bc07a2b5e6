import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { spendConfirmationSchema } from '../../base/contract/accounts.js';
import { usageQuerySchema, usageReportSchema } from '../../base/contract/usage.js';
import { accountInfoSchema } from '../../base/contract/website/account.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { upstreamKeyRoutes } from './upstream-key-routes.js';
import type { WebsiteServices } from './website-services.js';

/** The account page's settings: profile and upstream access, usage, own upstream keys (credentials: credential-routes). */
export async function accountRoutes(app: FastifyInstance, { services }: { services: WebsiteServices }) {
  accountSettingsRoute(app, services);
  accountUsageRoute(app, services);
  spendConfirmationRoute(app, services);
  upstreamKeyRoutes(app, services);
}

/** GET /account: profile, API key hint, base URL, upstream access. */
function accountSettingsRoute(app: FastifyInstance, services: WebsiteServices) {
  const { accounts, upstreamAccess } = services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/account',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Account settings',
        description:
          'Profile, has_key, the API key hint, the base URL, the spend confirmation of MCP tools, and for each provider that takes a key whether the account or the deployment holds one (keys are never shown back).',
        security: websiteSession,
        response: {
          200: jsonResponse('Account settings', accountInfoSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => {
      const account = accountOf(request);
      const [hasKey, apiKeyHint, upstream, spendConfirmation] = await Promise.all([
        upstreamAccess.hasKey(account.id),
        accounts.apiKeyHint(account.id),
        upstreamAccess.overview(account.id),
        services.spendConfirmations.of(account.id),
      ]);
      return {
        email: account.email,
        tier: account.tier,
        has_key: hasKey,
        api_key_hint: apiKeyHint ?? null,
        base_url: services.publicBaseUrl,
        upstream,
        spend_confirmation: spendConfirmation,
      };
    },
  );
}

/** GET /account/usage: the account's usage report. */
function accountUsageRoute(app: FastifyInstance, services: WebsiteServices) {
  app.withTypeProvider<ZodTypeProvider>().get(
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
}

/** PUT /account/spend-confirmation: when MCP tools ask the person before spending (docs/mcp.md). */
function spendConfirmationRoute(app: FastifyInstance, services: WebsiteServices) {
  app.withTypeProvider<ZodTypeProvider>().put(
    '/account/spend-confirmation',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Set the spend confirmation of MCP tools',
        description:
          'Above which price generate_image, refine_image and act_on_image ask the person (MCP elicitation) before spending, for calls made with an API key and for hosts signed in to /mcp. Only a website session may change it: an agent holding a key cannot switch its own check off.',
        security: websiteSession,
        body: spendConfirmationSchema,
        response: {
          200: jsonResponse('The setting now', spendConfirmationSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden']),
        },
      },
    },
    async (request) => services.spendConfirmations.set(accountOf(request).id, request.body),
  );
}
