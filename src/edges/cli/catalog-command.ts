import { parseArgs } from 'node:util';
import { systemClock } from '../../base/runtime/clock.js';
import {
  checkCatalog,
  formatCatalogReport,
  loadCatalog,
  readCatalogSource,
} from '../../capabilities/catalog/index.js';
import { createProviderRegistry } from '../../capabilities/providers/index.js';
import type { Core } from '../../core.js';
import type { Config } from '../../infra/config/config.js';
import { cliActor } from './cli-audit.js';
import { UsageError } from './cli-usage.js';

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

/**
 * `atelier catalog show [--json]`: the catalog version in force in the store (where it came from)
 * and its document. `atelier catalog import FILE`: FILE's document stored as the next version (checked
 * as the loader checks the catalog file), in force on every node within ATELIER_CONFIG_REFRESH_MS,
 * recorded in the audit log as a CLI change.
 */
export async function catalogStoreCommand(
  core: Pick<Core, 'catalog' | 'catalogVersions' | 'audit'>,
  sub: 'show' | 'import',
  args: string[],
  out: (line: string) => void,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: sub === 'import',
  });
  if (sub === 'show') {
    const v = core.catalog.inForce;
    if (values.json) out(JSON.stringify({ version: v.version, source: v.source, document: v.document }));
    else
      out(`version ${v.version}, from ${v.source} (${v.createdBy})\n${JSON.stringify(v.document, null, 2)}`);
    return 0;
  }
  const [path] = positionals;
  if (!path || positionals.length > 1) throw new UsageError('catalog import takes one FILE');
  const { document } = readCatalogSource(path);
  const before = core.catalog.inForce;
  const actor = cliActor();
  const stored = await core.catalogVersions.edit({
    expectedVersion: before.version,
    document,
    source: 'cli',
    createdBy: actor.label,
  });
  await core.audit.record(actor, {
    action: 'catalog.update',
    target: { type: 'catalog', id: 'catalog' },
    before: { version: before.version, document: before.document },
    after: { version: stored.version, file: path, document: stored.document },
  });
  out(`catalog version ${stored.version} stored from ${path}; every node uses it within seconds`);
  return 0;
}
