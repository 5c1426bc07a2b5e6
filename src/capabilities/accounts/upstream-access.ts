import { InvalidInput } from '../../base/domain/errors.js';
import type { Catalog } from '../catalog/index.js';
import { DEFAULT_MODEL_ID } from '../catalog/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { UpstreamKeyResolver } from './accounts-service.js';

/** Upstreams a person may hold their own key for, whether or not this deployment has them configured yet. */
const KEYED_UPSTREAMS = ['gemini', 'openai', 'replicate'];

export interface UpstreamAccessDeps {
  catalog: Catalog;
  providers: ProviderRegistry;
  keys: UpstreamKeyResolver;
  /**
   * A key of the deployment's pool for `provider` in service, if any (the environment's key is a
   * key of its pool): what `deployment_key` reports. Without it, the environment's key alone.
   */
  pooledKey?(provider: string): Promise<string | undefined>;
}

/** Whether the deployment supplies a key for `name`: one of its pool's keys in service (or its environment's). */
async function deploymentKey(deps: UpstreamAccessDeps, name: string): Promise<boolean> {
  if (deps.pooledKey) return (await deps.pooledKey(name)) !== undefined;
  return Boolean(deps.providers.deploymentKeys[name]);
}

/**
 * `has_key` (DESIGN.md §2): the account can reach the upstream of the default model — it has its
 * own key, the deployment supplies one, or that provider needs none.
 */
export async function hasKey(deps: UpstreamAccessDeps, accountId: string): Promise<boolean> {
  const model = deps.catalog.get(DEFAULT_MODEL_ID);
  const provider = model && deps.providers.get(model.provider);
  if (!provider) return false;
  if (!provider.requiresKey) return true;
  return (await deps.keys.resolve(accountId, provider.name)) !== null;
}

/** Providers a key can be set for: the keyed upstreams Atelier knows plus any configured one that requires a key. */
export function keyedProviders(providers: ProviderRegistry): string[] {
  const names = new Set<string>([...KEYED_UPSTREAMS, ...Object.keys(providers.deploymentKeys)]);
  for (const name of providers.names()) {
    if (providers.get(name)?.requiresKey) names.add(name);
  }
  for (const name of [...names]) {
    if (providers.get(name)?.requiresKey === false) names.delete(name);
  }
  return [...names].sort();
}

/** Where an account stands with each keyed upstream (the website's account page). */
export interface UpstreamOverview {
  default_provider: string;
  /** Whether the default model's provider needs a key at all. */
  key_required: boolean;
  providers: Array<{ name: string; configured: boolean; own_key: boolean; deployment_key: boolean }>;
}

/**
 * Which upstreams take a key and whether an account can reach them: the one place these rules
 * live, for the API's `has_key` and the website's account page.
 */
export function createUpstreamAccess(
  deps: UpstreamAccessDeps & {
    /** The providers the account has stored its own key for. */
    ownKeyProviders(accountId: string): Promise<string[]>;
  },
) {
  const { providers } = deps;
  return {
    hasKey: (accountId: string) => hasKey(deps, accountId),

    keyedProviders: () => keyedProviders(providers),

    /** `provider` when a key can be set for it; otherwise InvalidInput listing the ones that can. */
    requireKeyedProvider(provider: string): string {
      const known = keyedProviders(providers);
      if (!known.includes(provider)) {
        throw new InvalidInput(`provider must be one of ${known.join(', ')}`, 'provider');
      }
      return provider;
    },

    async overview(accountId: string): Promise<UpstreamOverview> {
      const own = new Set(await deps.ownKeyProviders(accountId));
      const defaultProvider = deps.catalog.get(DEFAULT_MODEL_ID)?.provider ?? 'local';
      return {
        default_provider: defaultProvider,
        key_required: providers.get(defaultProvider)?.requiresKey ?? false,
        providers: await Promise.all(
          keyedProviders(providers).map(async (name) => ({
            name,
            configured: providers.get(name) !== undefined,
            own_key: own.has(name),
            deployment_key: await deploymentKey(deps, name),
          })),
        ),
      };
    },
  };
}

export type UpstreamAccess = ReturnType<typeof createUpstreamAccess>;
