import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ApiKey } from '../accounts/api-keys-repository.js';
import {
  ADMIN_TAG,
  type AdminApiKey,
  adminAccountParamsSchema,
  adminApiKeySchema,
  adminApiKeysSchema,
  adminCreatedKeySchema,
  adminCreateKeyBodySchema,
  adminKeyParamsSchema,
  adminKeysQuerySchema,
  adminSecurity,
} from '../contract/admin.js';
import { NotFound } from '../domain/errors.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';

/** A key on the wire (never the key itself: its hint). */
export function keyAnswer(key: ApiKey): AdminApiKey {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    hint: key.hint,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
  };
}

/** An account's API keys: list, issue (shown once), revoke (refused at once on every node). */
export async function adminKeyRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, directory } = deps;
  const requireAccountId = async (id: string) => {
    if (!(await directory.entry(id))) throw new NotFound('Account not found');
    return id;
  };

  api.get(
    '/accounts/:id/keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "An account's API keys",
        params: adminAccountParamsSchema,
        querystring: adminKeysQuerySchema,
        response: {
          200: jsonResponse('The keys, oldest first', adminApiKeysSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(request.params.id);
      const keys = await accounts.listKeys(id, { includeRevoked: request.query.revoked === true });
      return { keys: keys.map(keyAnswer) };
    },
  );

  api.post(
    '/accounts/:id/keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Issue an API key',
        description:
          'A new key for the account, named, full or read-only, optionally expiring; the key itself is answered this once.',
        params: adminAccountParamsSchema,
        body: adminCreateKeyBodySchema,
        response: {
          201: jsonResponse('The key, shown this once', adminCreatedKeySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const id = await requireAccountId(request.params.id);
      const { name, scope, expires_at } = request.body;
      const { key, apiKey } = await accounts.createKey(id, { name, scope, expiresAt: expires_at ?? null });
      reply.code(201);
      return { key: keyAnswer(key), api_key: apiKey };
    },
  );

  api.delete(
    '/accounts/:id/keys/:key_id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Revoke an API key',
        description:
          'The key is refused (401 invalid_api_key) at once, on every node. A key already revoked, or not of this account, is 404.',
        params: adminKeyParamsSchema,
        response: {
          200: jsonResponse('The key as revoked', adminApiKeySchema),
          ...errorResponses([...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(request.params.id);
      return keyAnswer(await accounts.revokeKey(id, request.params.key_id));
    },
  );
}
