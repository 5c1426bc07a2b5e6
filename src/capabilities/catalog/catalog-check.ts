/**
 * Catalogs that cannot silently rot: which upstream models of the catalog are near or past their
 * announced shutdown (from each entry's `lifecycle`), and — where a deployment key is configured —
 * whether the provider's model list still has them. Used by `bin/atelier catalog check` and, in the
 * background, at every start (src/capabilities/catalog/startup-check.ts). Nothing here throws for an upstream's
 * behaviour: a network failure is a line of the report, never a failed start.
 */
import type { ImageProvider } from '../providers/index.js';
import { type Catalog, routesOf } from './catalog.js';
import type { Lifecycle } from './catalog-file.js';
import type { RoutePrice } from './prices.js';

const DAY_MS = 86_400_000;
/** "Near" shutdown: within this many days. */
export const SHUTDOWN_WARNING_DAYS = 30;
/** A price read longer ago than this is reported as due for a re-read (docs/operations.md). */
export const PRICE_MAX_AGE_DAYS = 90;
/** The image models of a provider's whole list (what the catalog could offer). */
const IMAGE_MODEL: Record<string, RegExp> = {
  openai: /^(gpt-image|chatgpt-image|dall-e)/,
  gemini: /image/,
};

export type DateStatus = 'ok' | 'deprecated' | 'near_shutdown' | 'past_shutdown';
export type UpstreamStatus = 'present' | 'missing' | 'not_checked' | 'error';

/** One upstream model of the catalog (a provider and its model name), with the ids that use it. */
export interface RouteReport {
  provider: string;
  upstreamModel: string;
  /** Public model ids routed to it (as primary route or fallback). */
  modelIds: string[];
  lifecycle?: Lifecycle | undefined;
  dates: DateStatus;
  upstream: UpstreamStatus;
  /** A shutdown day the provider's model list announces (OpenAI's `shutdown_date`). */
  announcedShutdown?: string;
  /** Why the upstream was not asked, or what went wrong asking it. */
  detail?: string;
  /** Whether the catalog gives the route a price (else its images' cost is unknown). */
  priced: boolean;
  /** The route's price problems (see CatalogReport.prices). */
  priceProblems?: string[];
}

export interface CatalogReport {
  routes: RouteReport[];
  /** One sentence per problem, for logs and the command's output. */
  warnings: string[];
  /**
   * One sentence per paid route without a price: not a problem for serving, but its images' cost is
   * null, usage counts them at 0 and budgets reserve nothing for them.
   */
  unpriced: string[];
  /**
   * One sentence per price problem: a price read more than PRICE_MAX_AGE_DAYS ago (or with no
   * `asOf`), a token-billed route without `maxPerImage` (its reservation would be a guess).
   */
  prices: string[];
  /** Informational: image models a provider lists that the catalog does not route to. */
  unlisted: string[];
}

/** The state of a lifecycle on `nowMs`. */
export function dateStatus(
  lifecycle: Lifecycle | undefined,
  nowMs: number,
  warningDays = SHUTDOWN_WARNING_DAYS,
): DateStatus {
  if (lifecycle?.shutdown) {
    const shutdown = Date.parse(`${lifecycle.shutdown}T00:00:00Z`);
    if (nowMs >= shutdown) return 'past_shutdown';
    if (shutdown - nowMs <= warningDays * DAY_MS) return 'near_shutdown';
  }
  if (lifecycle?.deprecated && nowMs >= Date.parse(`${lifecycle.deprecated}T00:00:00Z`)) return 'deprecated';
  return 'ok';
}

/** What is wrong with a route's price on `nowMs`: its age, a token-billed route without a maximum. */
export function priceProblems(price: RoutePrice | undefined, nowMs: number): string[] {
  if (!price) return [];
  const problems: string[] = [];
  if (!price.asOf) problems.push('its price has no asOf date');
  else {
    const age = Math.floor((nowMs - Date.parse(`${price.asOf}T00:00:00Z`)) / DAY_MS);
    if (age > PRICE_MAX_AGE_DAYS)
      problems.push(
        `its price was read on ${price.asOf} (${age} days ago, more than ${PRICE_MAX_AGE_DAYS}): re-read ${price.source ?? "the provider's pricing page"}${price.recheck ? ` (last attempt ${price.recheck.on}: ${price.recheck.note})` : ''}`,
      );
  }
  if (price.perMillionTokens && !price.maxPerImage)
    problems.push('it bills tokens but has no maxPerImage: admission reserves only the per-image figure');
  return problems;
}

/** Each distinct route (provider, upstream model) of the catalog, in catalog order. */
export function catalogRoutes(
  catalog: Catalog,
  nowMs: number,
  warningDays = SHUTDOWN_WARNING_DAYS,
): RouteReport[] {
  const byKey = new Map<string, RouteReport>();
  for (const model of catalog.models) {
    for (const route of routesOf(model)) {
      const known = byKey.get(route.id);
      if (known) {
        if (!known.modelIds.includes(model.id)) known.modelIds.push(model.id);
        known.lifecycle ??= route.lifecycle;
        known.priced ||= route.price !== undefined;
        continue;
      }
      const problems = priceProblems(route.price, nowMs);
      byKey.set(route.id, {
        provider: route.provider,
        upstreamModel: route.upstreamModel,
        modelIds: [model.id],
        lifecycle: route.lifecycle,
        dates: 'ok',
        upstream: 'not_checked',
        priced: route.price !== undefined,
        ...(problems.length > 0 ? { priceProblems: problems } : {}),
      });
    }
  }
  const routes = [...byKey.values()];
  for (const route of routes) route.dates = dateStatus(route.lifecycle, nowMs, warningDays);
  return routes;
}

/** The replacement the catalog knows for an upstream model, if any. */
export function replacementOf(catalog: Catalog, provider: string, upstreamModel: string): string | undefined {
  for (const model of catalog.models) {
    for (const route of routesOf(model)) {
      if (
        route.provider === provider &&
        route.upstreamModel === upstreamModel &&
        route.lifecycle?.replacement
      )
        return route.lifecycle.replacement;
    }
  }
  return undefined;
}

const daysBetween = (fromMs: number, day: string) =>
  Math.round((Date.parse(`${day}T00:00:00Z`) - fromMs) / DAY_MS);

/** The warning sentence for a route, or undefined when there is nothing to say. */
function warningOf(route: RouteReport, nowMs: number): string | undefined {
  const who = `${route.modelIds.join(', ')} → ${route.provider} ${route.upstreamModel}`;
  const replacement = route.lifecycle?.replacement ? `; replacement: ${route.lifecycle.replacement}` : '';
  const problems: string[] = [];
  const shutdown = route.lifecycle?.shutdown ?? route.announcedShutdown;
  const announced = route.lifecycle?.shutdown ? '' : ` (announced by ${route.provider}'s model list)`;
  if (route.dates === 'past_shutdown' && shutdown)
    problems.push(`shut down on ${shutdown} (${-daysBetween(nowMs, shutdown)} days ago)${announced}`);
  if (route.dates === 'near_shutdown' && shutdown)
    problems.push(`shuts down on ${shutdown} (in ${daysBetween(nowMs, shutdown)} days)${announced}`);
  if (route.dates === 'deprecated') problems.push(`deprecated since ${route.lifecycle?.deprecated}`);
  if (route.upstream === 'missing')
    problems.push(
      route.provider === 'comfyui'
        ? 'a ComfyUI server lacks a checkpoint file its workflows load (or a workflow file is unreadable): tasks on it will fail'
        : `${route.provider}'s model list does not have it: tasks on it will fail`,
    );
  if (route.upstream === 'error')
    problems.push(`could not ask ${route.provider}'s model list (${route.detail})`);
  return problems.length > 0 ? `${who}: ${problems.join('; ')}${replacement}` : undefined;
}

export interface CheckCatalogOptions {
  catalog: Catalog;
  /** The providers (with `checkModels` where the upstream has a model list). */
  providers: { get(name: string): ImageProvider | undefined };
  /** The deployment-wide key per provider; a provider without one is not asked. */
  keys: Record<string, string | undefined>;
  now: () => number;
  warningDays?: number;
  /** false: dates only, no upstream call. */
  askUpstream?: boolean;
  signal?: AbortSignal;
}

/** The lifecycle dates of every upstream model and, where a key is set, the providers' answer. */
export async function checkCatalog(options: CheckCatalogOptions): Promise<CatalogReport> {
  const nowMs = options.now();
  const routes = catalogRoutes(options.catalog, nowMs, options.warningDays);
  const signal = options.signal ?? new AbortController().signal;
  const listedBy = new Map<string, string[]>();
  if (options.askUpstream !== false) {
    const byProvider = Map.groupBy(routes, (route) => route.provider);
    await Promise.all(
      [...byProvider].map(async ([name, list]) => {
        const provider = options.providers.get(name);
        const key = options.keys[name];
        if (!provider?.checkModels) {
          for (const route of list) route.detail = 'the provider has no model list';
          return;
        }
        // A keyless upstream (ComfyUI: its servers' checkpoint lists) is asked without one.
        if (!key && provider.requiresKey) {
          for (const route of list) route.detail = `no deployment key for ${name}`;
          return;
        }
        const answer = await provider
          .checkModels(
            list.map((route) => route.upstreamModel),
            key ?? '',
            signal,
          )
          .catch((error: unknown) => ({ error: error instanceof Error ? error.message : 'failed' }));
        for (const route of list) {
          if ('error' in answer) {
            route.upstream = 'error';
            route.detail = answer.error;
          } else {
            if (answer.listed) listedBy.set(name, answer.listed);
            route.upstream = answer.missing.includes(route.upstreamModel) ? 'missing' : 'present';
            const announced = answer.shutdowns?.[route.upstreamModel];
            if (announced) route.announcedShutdown = announced;
          }
        }
      }),
    );
  }
  // A shutdown the provider announces counts where the catalog's lifecycle names none.
  for (const route of routes) {
    if (route.announcedShutdown && !route.lifecycle?.shutdown) {
      const lifecycle = { ...route.lifecycle, shutdown: route.announcedShutdown };
      route.dates = dateStatus(lifecycle, nowMs, options.warningDays);
    }
  }
  const warnings = routes.flatMap((route) => warningOf(route, nowMs) ?? []);
  const unpriced = routes
    .filter((route) => !route.priced && route.provider !== 'local')
    .map(
      (route) =>
        `${route.modelIds.join(', ')} → ${route.provider} ${route.upstreamModel}: no price in the catalog — its images' cost is null, usage counts them at $0 and budgets reserve nothing for them`,
    );
  const prices = routes.flatMap((route) =>
    (route.priceProblems ?? []).map(
      (problem) => `${route.modelIds.join(', ')} → ${route.provider} ${route.upstreamModel}: ${problem}`,
    ),
  );
  const routed = new Set(routes.map((route) => `${route.provider}\u0000${route.upstreamModel}`));
  const unlisted = [...listedBy].flatMap(([provider, listed]) =>
    listed
      .filter((id) => IMAGE_MODEL[provider]?.test(id) && !routed.has(`${provider}\u0000${id}`))
      // A dated snapshot of a routed model, or the alias of a routed snapshot, is the same model.
      .filter(
        (id) =>
          ![...routed].some(
            (key) => key.startsWith(`${provider}\u0000`) && sameModel(key.split('\u0000')[1] ?? '', id),
          ),
      )
      .map((id) => `${provider} lists ${id}, which the catalog does not offer`),
  );
  return { routes, warnings, unpriced, prices, unlisted };
}

const DATED = /-\d{4}-\d{2}-\d{2}$/;
const sameModel = (a: string, b: string) => a.replace(DATED, '') === b.replace(DATED, '');

/** The report as lines for a person: one per upstream model, then the warnings. */
export function formatCatalogReport(report: CatalogReport): string[] {
  const lines = report.routes.map((route) => {
    const day = route.lifecycle?.shutdown ?? route.announcedShutdown;
    const shutdown = day ? `, shutdown ${day}` : '';
    const upstream =
      route.upstream === 'not_checked' ? `not asked (${route.detail ?? 'dates only'})` : route.upstream;
    return `${route.provider} ${route.upstreamModel} [${route.modelIds.join(', ')}]: ${route.dates.replace('_', ' ')}${shutdown}; upstream: ${upstream}`;
  });
  const notes = [
    ...report.unpriced.map((note) => `NOTE ${note}`),
    ...report.prices.map((note) => `PRICE ${note}`),
    ...report.unlisted.map((note) => `INFO ${note}`),
  ];
  if (report.warnings.length === 0)
    return [...lines, ...(notes.length ? ['', ...notes] : []), 'No problems found.'];
  return [...lines, '', ...report.warnings.map((warning) => `WARNING ${warning}`), ...notes];
}
