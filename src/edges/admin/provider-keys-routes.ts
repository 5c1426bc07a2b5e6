import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminSecurity } from '../../base/contract/admin.js';
import {
  addProviderKeySchema,
  providerKeyParamsSchema,
  providerKeySchema,
  providerKeysSchema,
  updateProviderKeySchema,
} from '../../base/contract/admin-provider-keys.js';
import { NotFound } from '../../base/domain/errors.js';
import { REDACTED } from '../../capabilities/audit/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited, providerKeyNow } from './audit-trail.js';

const DESCRIPTION =
  'Keys are sent once (added or replaced) and never answered back: each key is named by its provider and name.';

/** The key's state as the list answers it; 404 when there is none. */
async function stateOf(deps: AdminDeps, provider: string, name: string) {
  const found = (await deps.providerKeys.states()).find(
    (key) => key.provider === provider && key.name === name,
  );
  if (!found) throw new NotFound(`no ${provider} key named "${name}"`);
  return found;
}

const listed = async (deps: AdminDeps) => ({
  currency: 'USD' as const,
  keys: await deps.providerKeys.states(),
});

/** The deployment's pools of upstream keys: list every key with its pool's figures, add, change, remove. */
export async function adminProviderKeyRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listKeys(api, deps);
  addKey(api, deps);
  changeKey(api, deps);
  removeKey(api, deps);
}

/** GET /provider-keys: every key of every pool, with its figures. */
function listKeys(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/provider-keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Every key of every upstream pool',
        description: `Each key with its status (in service, disabled, or taken out by an "invalid key" or "no quota left" answer, with its re-check time), weight, project, its pool's capacity, calls in flight and waiting tasks (every node), refusals and 30 days' spend. ${DESCRIPTION}`,
        response: {
          200: jsonResponse('The keys, by provider and name', providerKeysSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    () => listed(deps),
  );
}

/** POST /provider-keys: a key added to its pool. */
function addKey(api: ZodApp, deps: AdminDeps) {
  const { providerKeys } = deps;
  api.post(
    '/provider-keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Add a key to a provider’s pool',
        description: `Sealed in the store under the master key; tasks spread over the pool's keys by weight and free capacity at once, on every node. ${DESCRIPTION}`,
        body: addProviderKeySchema(providerKeys.keyedProviders()),
        response: {
          201: jsonResponse('The key as added (without the key)', providerKeySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'conflict']),
        },
      },
    },
    async (request, reply) => {
      const { provider, name, key, weight, project, max_in_flight } = request.body;
      const known = providerKeys.requireKeyedProvider(provider);
      await providerKeys.store.add(known, name, key, { weight, project, maxInFlight: max_in_flight });
      await audited(deps, request, {
        action: 'provider-key.add',
        target: { type: 'provider-key', id: `${known}/${name}` },
        before: null,
        after: { ...(await providerKeyNow(deps, known, name)), key: REDACTED },
      });
      reply.code(201);
      return stateOf(deps, known, name);
    },
  );
}

/** PATCH /provider-keys/:provider/:name: a key changed. */
function changeKey(api: ZodApp, deps: AdminDeps) {
  const { providerKeys } = deps;
  api.patch(
    '/provider-keys/:provider/:name',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Change a key: weight, project, limit, secret, enabled',
        description: `Absent fields stay. enabled: true also puts back a key the upstream took out; a new secret puts it back too. ${DESCRIPTION}`,
        params: providerKeyParamsSchema,
        body: updateProviderKeySchema,
        response: {
          200: jsonResponse('The key as changed (without the key)', providerKeySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { provider, name } = request.params;
      const { key, weight, project, max_in_flight, enabled } = request.body;
      const before = await providerKeyNow(deps, provider, name);
      await providerKeys.store.update(provider, name, { key, weight, project, maxInFlight: max_in_flight });
      if (enabled !== undefined) await providerKeys.store.setEnabled(provider, name, enabled);
      const after = await providerKeyNow(deps, provider, name);
      await audited(deps, request, {
        action: 'provider-key.update',
        target: { type: 'provider-key', id: `${provider}/${name}` },
        before,
        after: after && key !== undefined ? { ...after, key: REDACTED } : after,
      });
      return stateOf(deps, provider, name);
    },
  );
}

/** DELETE /provider-keys/:provider/:name: a key forgotten. */
function removeKey(api: ZodApp, deps: AdminDeps) {
  const { providerKeys } = deps;
  api.delete(
    '/provider-keys/:provider/:name',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Remove a key from its pool',
        description:
          'The key is forgotten (its sealed secret deleted). The env key (ATELIER_<PROVIDER>_API_KEY) cannot be removed here: disable it, or unset the variable.',
        params: providerKeyParamsSchema,
        response: {
          200: jsonResponse('The keys left', providerKeysSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { provider, name } = request.params;
      const before = await providerKeyNow(deps, provider, name);
      await providerKeys.store.remove(provider, name);
      const target = { type: 'provider-key' as const, id: `${provider}/${name}` };
      await audited(deps, request, { action: 'provider-key.remove', target, before, after: null });
      return listed(deps);
    },
  );
}
