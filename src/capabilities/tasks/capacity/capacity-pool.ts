import { createHash } from 'node:crypto';
import { routeIdOf } from '../../catalog/index.js';

/** What the catalog may set on an upstream route (all optional; absent means "learn it"). */
export interface CapacityLimits {
  /** Calls in flight at once on this pool, across every worker. */
  maxInFlight?: number | undefined;
  /** Calls started per minute (sliding window), across every worker. */
  requestsPerMinute?: number | undefined;
  /** Images per minute; Atelier asks one image per call, so this caps calls per minute too. */
  imagesPerMinute?: number | undefined;
}

/**
 * One capacity pool: the calls of one provider's upstream model made with one key. Keys are
 * identified by a hash (never stored, logged or labelled in clear): an account's own key and the
 * deployment's key are different pools.
 */
export interface CapacityPool {
  /** `provider/upstreamModel/keyHash`: the row id, the wait marker on tasks, a metrics label part. */
  id: string;
  provider: string;
  upstreamModel: string;
  keyHash: string;
  limits: CapacityLimits;
  /**
   * The key parts of the same upstream model's pools for the provider's other keys in service (a
   * deployment's pool of keys): room to spare on this pool calls back the tasks parked on theirs.
   */
  siblings?: readonly string[] | undefined;
}

/** The first 16 hex digits of the key's SHA-256 (`none` for providers without a key). */
export function keyHashOf(apiKey: string | null): string {
  if (apiKey === null) return 'none';
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** A pool's id: its catalog route's id (route-id.ts) and its key part. */
export const poolIdOf = (routeId: string, keyHash: string): string => `${routeId}/${keyHash}`;

export function capacityPool(
  provider: string,
  upstreamModel: string,
  apiKey: string | null,
  limits: CapacityLimits,
): CapacityPool {
  const keyHash = keyHashOf(apiKey);
  const id = poolIdOf(routeIdOf({ provider, upstreamModel }), keyHash);
  return { id, provider, upstreamModel, keyHash, limits };
}

/** The pools of `pool`'s siblings (the provider's other keys in service), each with its own siblings. */
export function siblingPools(pool: CapacityPool): CapacityPool[] {
  const keys = pool.siblings ?? [];
  return keys.map((keyHash) => ({
    id: poolIdOf(routeIdOf(pool), keyHash),
    provider: pool.provider,
    upstreamModel: pool.upstreamModel,
    keyHash,
    limits: {},
    siblings: [pool.keyHash, ...keys.filter((key) => key !== keyHash)],
  }));
}

/** Where the hold of a pool's polls is kept: a row of its own, which no call or task ever uses. */
export const POLLS_SUFFIX = '#polls';
export const pollsOf = (pool: CapacityPool): CapacityPool => ({ ...pool, id: `${pool.id}${POLLS_SUFFIX}` });

/** Calls per window the configuration allows (the smaller of the two per-minute limits), if any. */
export function configuredPerMinute(limits: CapacityLimits): number | undefined {
  const values = [limits.requestsPerMinute, limits.imagesPerMinute].filter(
    (v): v is number => v !== undefined,
  );
  return values.length === 0 ? undefined : Math.min(...values);
}

/** True when the route configures any limit (a keyless provider is then gated too). */
export function hasConfiguredLimit(limits: CapacityLimits): boolean {
  return limits.maxInFlight !== undefined || configuredPerMinute(limits) !== undefined;
}

/** One upstream route as the catalog writes it, with the capacity limits set on it (if any). */
interface RouteWithLimits {
  provider: string;
  upstreamModel: string;
  capacity?: CapacityLimits | undefined;
}

/**
 * The limits of each upstream route, from the catalog's models: a model's own route and each of its
 * fallback routes, each with the limits written on it (a fallback's calls go through that route's
 * pool with that route's limits, not the model's). A route several entries name takes the smallest
 * value of each limit any of them sets. Answers the limits of a route by its id (route-id.ts).
 */
export function routeLimits(
  models: ReadonlyArray<RouteWithLimits & { fallbacks?: readonly RouteWithLimits[] | undefined }>,
): (routeId: string) => CapacityLimits {
  const byRoute = new Map<string, CapacityLimits>();
  const smaller = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  const routes = models.flatMap((model) => [model, ...(model.fallbacks ?? [])]);
  for (const route of routes) {
    if (!route.capacity) continue;
    const key = routeIdOf(route);
    const known = byRoute.get(key) ?? {};
    byRoute.set(key, {
      maxInFlight: smaller(known.maxInFlight, route.capacity.maxInFlight),
      requestsPerMinute: smaller(known.requestsPerMinute, route.capacity.requestsPerMinute),
      imagesPerMinute: smaller(known.imagesPerMinute, route.capacity.imagesPerMinute),
    });
  }
  return (routeId) => byRoute.get(routeId) ?? {};
}
