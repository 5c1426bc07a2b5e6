import { loadCatalog } from './capabilities/catalog/index.js';
import {
  type BreakerChange,
  createProviderRegistry,
  type ProviderRegistry,
} from './capabilities/providers/index.js';
import type { CoreResources } from './core-resources.js';

/** The providers (or a test's) and the model catalog over them (ATELIER_CATALOG_FILE). */
export function buildCatalog(
  { config, clock }: CoreResources,
  testProviders: ProviderRegistry | undefined,
  onBreakerChange?: (change: BreakerChange) => void,
) {
  const providers = testProviders ?? createProviderRegistry({ config, clock, onBreakerChange });
  const catalog = loadCatalog(config.catalogPath, providers.names());
  providers.configure?.(catalog.models);
  return { providers, catalog };
}

export type CatalogParts = ReturnType<typeof buildCatalog>;
