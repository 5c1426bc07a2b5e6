import { parseArgs } from 'node:util';
import { systemClock } from '../../base/runtime/clock.js';
import { checkCatalog, formatCatalogReport, loadCatalog } from '../../capabilities/catalog/index.js';
import { createProviderRegistry } from '../../capabilities/providers/index.js';
import type { Config } from '../../infra/config/config.js';

/**
 * `atelier catalog check [--catalog PATH] [--offline] [--days N] [--json]`: which upstream models of
 * the catalog are near (within N days, default 30) or past their shutdown, and — with a deployment
 * key per provider, unless --offline — whether each provider's model list still has them. Needs no
 * database. Exit code 1 when a model is past its shutdown or missing upstream, else 0 (a model list
 * that cannot be reached is reported, not failed).
 */
export async function catalogCheckCommand(
  config: Config,
  args: string[],
  out: (line: string) => void,
  now: () => number = () => systemClock.now(),
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      catalog: { type: 'string' },
      offline: { type: 'boolean', default: false },
      days: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const warningDays = values.days === undefined ? undefined : Number(values.days);
  if (warningDays !== undefined && (!Number.isInteger(warningDays) || warningDays < 0))
    throw Object.assign(new Error('--days must be a whole number of days'), {
      code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
    });
  // Workflow files (ComfyUI) are found beside the catalog checked.
  const catalogPath = values.catalog ?? config.catalogPath;
  const providers = createProviderRegistry({ config: { ...config, catalogPath }, clock: systemClock });
  const catalog = loadCatalog(catalogPath, providers.names());
  providers.configure?.(catalog.models);
  const report = await checkCatalog({
    catalog,
    providers,
    keys: providers.deploymentKeys,
    now,
    askUpstream: !values.offline,
    signal: AbortSignal.timeout(60_000),
    ...(warningDays !== undefined && { warningDays }),
  });
  if (values.json) out(JSON.stringify(report));
  else for (const line of formatCatalogReport(report)) out(line);
  const broken = report.routes.some(
    (route) => route.dates === 'past_shutdown' || route.upstream === 'missing',
  );
  return broken ? 1 : 0;
}
