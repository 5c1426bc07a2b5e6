import type { ImageProvider } from '../providers/index.js';

const RETRY_BASE_MS = 1000;
const RETRY_CAP_MS = 60_000;

/** Exponential backoff with full jitter, never sooner than the upstream's Retry-After. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return Math.max(retryAfterMs ?? 0, Math.round(random() * ceiling));
}

/** How long to wait before polling a pending upstream job again. */
export function pollDelayMs(
  provider: Pick<ImageProvider, 'pollIntervalMs'>,
  polls: number,
  random = Math.random,
): number {
  if (provider.pollIntervalMs !== undefined) return provider.pollIntervalMs;
  const base = Math.min(5000, 1000 * 1.5 ** polls);
  return Math.round(base * (0.8 + random() * 0.4));
}
