import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  oauthAuthorizationParamsSchema,
  oauthAuthorizationSchema,
  oauthDecisionBodySchema,
  oauthDecisionSchema,
  oauthGrantListSchema,
  oauthGrantParamsSchema,
} from '../../base/contract/oauth.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { NotFound } from '../../base/domain/errors.js';
import type { OAuthGrant } from '../../capabilities/accounts/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { WebsiteServices } from './website-services.js';

const GONE = 'This sign-in request is unknown, already answered or expired; start again from the app';

/** A redirect URI's host, or its scheme for an app's own scheme (`cursor:`). */
function redirectHostOf(uri: string): string {
  const url = new URL(uri);
  return url.host === '' ? url.protocol : url.host;
}

/**
 * Sign-in for hosted MCP clients, the website's part (issue 32): the consent page's question and
 * answer (a signed-in session; the answer is CSRF-checked as every state-changing website request
 * is), and the apps signed in with the account, listed and revoked beside its API keys.
 */
export async function oauthRoutes(app: FastifyInstance, deps: { services: WebsiteServices }) {
  const { oauth } = deps.services;
  if (!oauth) return;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/oauth/authorizations/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'A sign-in request awaiting consent',
        description:
          'What the consent page shows: the app (its registered name and redirect URI) and the account it would act as. 404 once answered or expired (10 minutes).',
        security: websiteSession,
        params: oauthAuthorizationParamsSchema,
        response: {
          200: jsonResponse('The request', oauthAuthorizationSchema),
          ...errorResponses(['unauthorized', 'not_found']),
        },
      },
    },
    async (request) => {
      const pending = await oauth.pendingAuthorization(request.params.id);
      if (!pending) throw new NotFound(GONE);
      return {
        id: pending.id,
        client_id: pending.clientId,
        client_name: pending.clientName,
        client_host: pending.clientHost,
        redirect_uri: pending.redirectUri,
        redirect_host: redirectHostOf(pending.redirectUri),
        account_email: accountOf(request).email,
      };
    },
  );

  api.post(
    '/oauth/authorizations/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Allow or decline a sign-in request',
        description:
          "Allow gives the app a one-time code (exchanged at /token with its PKCE verifier) for the signed-in account; decline answers error=access_denied. Either way the answer says where to send the browser (the app's redirect URI). 404 once answered or expired.",
        security: websiteSession,
        params: oauthAuthorizationParamsSchema,
        body: oauthDecisionBodySchema,
        response: {
          200: jsonResponse('Where the browser goes next', oauthDecisionSchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request) => {
      const target = await oauth.decide(request.params.id, accountOf(request).id, request.body.allow);
      if (!target) throw new NotFound(GONE);
      return { redirect_to: target };
    },
  );

  api.get(
    '/account/oauth-grants',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Apps signed in with the account',
        description:
          'The OAuth grants of the account (hosted MCP clients it allowed): app name, redirect host, when allowed, last use. Their tokens act as the account on /mcp only. Revoked and lapsed ones are left out, except those Atelier ended because a refresh token or code was presented twice (ended_reason; listed for 30 days).',
        security: websiteSession,
        response: {
          200: jsonResponse('The grants', oauthGrantListSchema),
          ...errorResponses(['unauthorized']),
        },
      },
    },
    async (request) => ({ grants: (await oauth.listForAccount(accountOf(request).id)).map(grantJson) }),
  );

  api.delete(
    '/account/oauth-grants/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: "Revoke an app's sign-in",
        description:
          "The app's access and refresh tokens stop working at once, on every node (tokens are checked against the store on every use). Unknown, revoked or another account's grant: 404.",
        security: websiteSession,
        params: oauthGrantParamsSchema,
        response: {
          204: noContent('Revoked'),
          ...errorResponses(['unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      if (!(await oauth.revokeForAccount(accountOf(request).id, request.params.id))) {
        throw new NotFound(`no working sign-in ${request.params.id} on this account`);
      }
      return reply.code(204).send(null);
    },
  );
}

function grantJson(grant: OAuthGrant) {
  return {
    id: grant.id,
    client_id: grant.clientId,
    client_name: grant.clientName,
    redirect_host: grant.redirectHost,
    created_at: grant.createdAt,
    last_used_at: grant.lastUsedAt,
    expires_at: grant.expiresAt,
    ended_at: grant.ended?.at ?? null,
    ended_reason: grant.ended?.reason ?? null,
  };
}
