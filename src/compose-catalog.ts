import type { AuditLog } from './capabilities/audit/index.js';
import { readCatalogSource, startCatalogVersions } from './capabilities/catalog/index.js';
import {
  type BreakerChange,
  createProviderRegistry,
  type ProviderRegistry,
} from './capabilities/providers/index.js';
import type { CoreResources } from './core-resources.js';

/**
 * The providers (or a test's) and the model catalog over them: the version in force in the store,
 * seeded from (or brought up to) the catalog file (ATELIER_CATALOG, else the built-in default), and
 * swapped on every node within ATELIER_CONFIG_REFRESH_MS of a change (docs/operations.md, "The
 * catalog at run time"). A start that stored a changed file records it in the audit log as a change
 * made by the file (source `file`, as the tier policies' import; the first start's seeding is only
 * logged). `onBreakerChange` hears each upstream's circuit breaker (the alerts).
 */
export async function buildCatalog(
  { config, clock, db, logger }: CoreResources,
  testProviders: ProviderRegistry | undefined,
  {
    audit,
    onBreakerChange,
  }: { audit: Pick<AuditLog, 'record'>; onBreakerChange?: (change: BreakerChange) => void },
) {
  const providers = testProviders ?? createProviderRegistry({ config, clock, onBreakerChange });
  const file = readCatalogSource(config.catalogPath);
  const catalogVersions = await startCatalogVersions(
    {
      db,
      clock,
      logger: logger.child({ component: 'catalog' }),
      knownProviders: providers.names(),
      refreshMs: config.configRefreshMs,
      onSwap: (catalog) => providers.configure?.(catalog.models),
    },
    file,
  );
  const { imported } = catalogVersions;
  // The first start's seeding changes nothing an operator made: only a changed file is audited.
  const before =
    imported && imported.version > 1 ? await catalogVersions.get(imported.version - 1) : undefined;
  if (imported && before) {
    await audit.record(
      {
        label: `file:${config.catalogPath ?? 'the built-in catalog'}`,
        accountId: null,
        source: 'file',
        requestId: null,
      },
      {
        action: 'catalog.import',
        target: { type: 'catalog', id: 'catalog' },
        before: { version: before.version, document: before.document },
        after: { version: imported.version, file: file.label, document: imported.document },
      },
    );
  }
  return { providers, catalog: catalogVersions.catalog, catalogVersions };
}

export type CatalogParts = Awaited<ReturnType<typeof buildCatalog>>;
