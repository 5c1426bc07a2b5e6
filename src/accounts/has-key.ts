import { type Catalog, DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { UpstreamKeyResolver } from './accounts-service.js';

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
