import { createHash } from 'node:crypto';

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
}

/** The first 16 hex digits of the key's SHA-256 (`none` for providers without a key). */
export function keyHashOf(apiKey: string | null): string {
  if (apiKey === null) return 'none';
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

export function capacityPool(
  provider: string,
  upstreamModel: string,
  apiKey: string | null,
  limits: CapacityLimits,
): CapacityPool {
  const keyHash = keyHashOf(apiKey);
  return { id: `${provider}/${upstreamModel}/${keyHash}`, provider, upstreamModel, keyHash, limits };
}

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

/**
 * The limits of each upstream route, from the catalog's models (a route several models share takes
 * the smallest value of each limit any of them sets).
 */
export function routeLimits(
  models: ReadonlyArray<{ provider: string; upstreamModel: string; capacity?: CapacityLimits | undefined }>,
): (provider: string, upstreamModel: string) => CapacityLimits {
  const byRoute = new Map<string, CapacityLimits>();
  const smaller = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  for (const model of models) {
    if (!model.capacity) continue;
    const key = `${model.provider}/${model.upstreamModel}`;
    const known = byRoute.get(key) ?? {};
    byRoute.set(key, {
      maxInFlight: smaller(known.maxInFlight, model.capacity.maxInFlight),
      requestsPerMinute: smaller(known.requestsPerMinute, model.capacity.requestsPerMinute),
      imagesPerMinute: smaller(known.imagesPerMinute, model.capacity.imagesPerMinute),
    });
  }
  return (provider, upstreamModel) => byRoute.get(`${provider}/${upstreamModel}`) ?? {};
}
