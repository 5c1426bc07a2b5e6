import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/catalog.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import { accountOf } from '../http/authentication.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { UpstreamKeyResolver } from './accounts-service.js';

/** GET /user/status (spec §2.7). */
export async function accountRoutes(
  app: FastifyInstance,
  deps: { catalog: Catalog; providers: ProviderRegistry; keys: UpstreamKeyResolver },
) {
  app.get('/user/status', async (request) => {
    const account = accountOf(request);
    return { email: account.email, tier: account.tier, has_key: await hasKey(deps, account.id) };
  });
}

/**
 * `has_key` (DESIGN.md §2): the account can reach the upstream of the default model — it has its
 * own key, the deployment supplies one, or that provider needs none.
 */
export async function hasKey(
  deps: { catalog: Catalog; providers: ProviderRegistry; keys: UpstreamKeyResolver },
  accountId: string,
): Promise<boolean> {
  const model = deps.catalog.get(DEFAULT_MODEL_ID);
  const provider = model && deps.providers.get(model.provider);
  if (!provider) return false;
  if (!provider.requiresKey) return true;
  return (await deps.keys.resolve(accountId, provider.name)) !== null;
}
