import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiKeyListSchema,
  apiKeyParamsSchema,
  apiKeySchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  keyRetentionBodySchema,
} from '../../base/contract/api-keys.js';
import { rotatedApiKeySchema } from '../../base/contract/website/account.js';
import { confirmPasswordBodySchema } from '../../base/contract/website/session.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { NotFound } from '../../base/domain/errors.js';
import { type ApiKey, apiKeyFields } from '../../capabilities/accounts/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { type CredentialDeps, confirmPassword, PASSWORD_CHECK_ERRORS } from './credential-routes.js';

/**
 * The account's API keys: the key rotated, and (issue 31) its keys listed, created (asking for the
 * password, as rotation does: a stolen session must not mint itself a key), revoked (no password:
 * it only takes away).
 */
export async function apiKeyRoutes(app: FastifyInstance, deps: CredentialDeps) {
  rotateApiKeyRoute(app, deps);
  listKeysRoute(app, deps);
  createKeyRoute(app, deps);
  revokeKeyRoute(app, deps);
  keyRetentionRoute(app, deps);
}

/** POST /account/api-key: a new API key (asking for the password again); the previous one stops. */
function rotateApiKeyRoute(app: FastifyInstance, deps: CredentialDeps) {
  const { accounts } = deps.services;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/account/api-key',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Rotate the API key',
        description:
          'Asks for the password again, then creates a new API key, shown once in the answer; the previous one stops working at once. A wrong password is 403 and counts against the sign-in throttle (429 with Retry-After); an account without a password cannot rotate from the website (403; the CLI can).',
        security: websiteSession,
        body: confirmPasswordBodySchema,
        response: {
          200: jsonResponse('The new API key', rotatedApiKeySchema),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
    },
    async (request) => {
      const account = accountOf(request);
      await confirmPassword(deps, request, account, request.body.password);
      const apiKey = await accounts.rotateApiKey(account.id);
      return { api_key: apiKey, api_key_hint: (await accounts.apiKeyHint(account.id)) ?? null };
    },
  );
}

/** GET /account/keys: the working keys. */
function listKeysRoute(app: FastifyInstance, { services }: CredentialDeps) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/account/keys',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: "The account's API keys",
        description:
          'Every working key: name, scope, hint, created, last used (to the minute), expiry. Revoked keys are left out; expired ones are listed as expired.',
        security: websiteSession,
        response: { 200: jsonResponse('The keys', apiKeyListSchema), ...errorResponses(['unauthorized']) },
      },
    },
    async (request) => {
      const now = services.clock.now();
      const keys = await services.accounts.listKeys(accountOf(request).id);
      return { keys: keys.map((key) => keyJson(key, now)) };
    },
  );
}

/** POST /account/keys: a new named key (asking for the password again), shown once. */
function createKeyRoute(app: FastifyInstance, deps: CredentialDeps) {
  const { services } = deps;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/account/keys',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Create an API key',
        description:
          'Asks for the password again, then makes a key with this name, scope (full, or read: polls, history, status and usage only) and optional expiry; the key itself is in the answer, shown this once. A wrong password is 403 and counts against the sign-in throttle (429 with Retry-After); an account without a password cannot create keys here (403; the CLI can). At most 100 working keys.',
        security: websiteSession,
        body: createApiKeyBodySchema,
        response: {
          201: jsonResponse('The new key, shown once', createdApiKeySchema),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { name, scope, expires_at: expiresAt, password } = request.body;
      await confirmPassword(deps, request, account, password);
      const created = await services.accounts.createKey(account.id, { name, scope, expiresAt });
      reply.header('cache-control', 'no-store');
      return reply
        .code(201)
        .send({ key: keyJson(created.key, services.clock.now()), api_key: created.apiKey });
    },
  );
}

/** DELETE /account/keys/:id: the key stops working. */
function revokeKeyRoute(app: FastifyInstance, { services }: CredentialDeps) {
  const { accounts } = services;
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/account/keys/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Revoke an API key',
        description:
          'The key stops working at once, on every node. An unknown, already revoked or another account’s key is 404.',
        security: websiteSession,
        params: apiKeyParamsSchema,
        response: {
          204: noContent('Revoked'),
          ...errorResponses(['unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { id } = request.params;
      // By id only: the hint is for people reading a list, the website always has the id.
      if (!(await accounts.listKeys(account.id)).some((key) => key.id === id)) {
        throw new NotFound(`no working key ${id} on this account`);
      }
      await accounts.revokeKey(account.id, id);
      return reply.code(204).send(null);
    },
  );
}

/** PUT /account/keys/:id/retention: the key's own retention (no password: the account's own images). */
function keyRetentionRoute(app: FastifyInstance, { services }: CredentialDeps) {
  app.withTypeProvider<ZodTypeProvider>().put(
    '/account/keys/:id/retention',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: "Set an API key's retention",
        description:
          "How long the works made with this key are kept (results_days, 1 to 36500; null: the account's), and whether the key stores nothing (zero_retention: its images are removed once fetched, or an hour after they ended). Absent fields stay. The shortest retention of deployment, tier, account and key applies. A revoked, unknown or another account's key is 404.",
        security: websiteSession,
        params: apiKeyParamsSchema,
        body: keyRetentionBodySchema,
        response: {
          200: jsonResponse('The key as set', apiKeySchema),
          ...errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request) => {
      const { results_days, zero_retention } = request.body;
      const key = await services.accounts.setKeyRetention(accountOf(request).id, request.params.id, {
        ...(results_days === undefined ? {} : { resultsRetentionDays: results_days }),
        ...(zero_retention === undefined ? {} : { zeroRetention: zero_retention }),
      });
      return keyJson(key, services.clock.now());
    },
  );
}

/** A key as the website shows it (its expiry judged at `now`). */
function keyJson(key: ApiKey, now: number) {
  return { ...apiKeyFields(key), expired: key.expiresAt !== null && key.expiresAt <= now };
}
