/**
 * What upstream answers say of rate limits, per provider, for the capacity pools: whether a refusal
 * is a limit on time (per minute, per day), which waits for its reset and says nothing of calls at
 * once, and the key's budget of requests, read on every answer (not only on refusals) so that calls
 * are paced to meet a per-minute limit without refusals.
 *
 * - OpenAI (platform.openai.com/docs/guides/rate-limits): every answer carries
 *   `x-ratelimit-limit-requests` / `-remaining-requests` / `-reset-requests` and the same three for
 *   `-tokens`; resets are Go-style durations (`12ms`, `1s`, `6m0s`). A 429 with a remaining count at
 *   0 is a limit on time; its wait is `Retry-After` or else that limit's reset.
 * - Gemini (ai.google.dev/gemini-api/docs/rate-limits): 429 `RESOURCE_EXHAUSTED` whose
 *   `error.details` hold a `google.rpc.QuotaFailure` (violations with `quotaMetric` / `quotaId` such
 *   as `GenerateRequestsPerMinutePerProjectPerModel`) and a `google.rpc.RetryInfo` `retryDelay`
 *   (`"26s"`); or a `google.rpc.ErrorInfo` `RATE_LIMIT_EXCEEDED` naming a `quota_limit`. No headers.
 * - Replicate (replicate.com/docs/topics/predictions/rate-limits): limits are on request rates
 *   (creates per minute); past them a 429 "Request was throttled" with `Retry-After`. Every 429 of
 *   Replicate is therefore a limit on time.
 */
import type { ProviderFailure, RequestQuota } from './provider.js';
import { isRecord } from './upstream-json.js';

const UNITS: Record<string, number> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 1e-6,
};

/** Milliseconds of a Go-style duration (`1h2m3.5s`, `6m0s`, `12ms`) or of bare seconds; undefined when unreadable. */
export function durationMs(text: string | null): number | undefined {
  if (text === null) return undefined;
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|µs|ns|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value) return undefined;
  return Math.ceil(parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNITS[unit ?? ''] ?? 0), 0));
}

/** One budget of OpenAI's headers (`requests` or `tokens`), when all three headers are readable. */
function budget(headers: Headers, name: 'requests' | 'tokens'): RequestQuota | undefined {
  const limit = Number(headers.get(`x-ratelimit-limit-${name}`) ?? Number.NaN);
  const remaining = Number(headers.get(`x-ratelimit-remaining-${name}`) ?? Number.NaN);
  const resetMs = durationMs(headers.get(`x-ratelimit-reset-${name}`));
  // Some OpenAI-compatible gateways send -1 for "no limit": not a budget.
  if (!(limit > 0) || !(remaining >= 0) || resetMs === undefined) return undefined;
  return { limit, remaining: Math.min(remaining, limit), resetMs };
}

/** OpenAI's request budget of an answer (any status) read at `readAt`, for pacing. */
export function openAIQuota(headers: Headers, readAt?: number): RequestQuota | undefined {
  const quota = budget(headers, 'requests');
  return quota && readAt !== undefined ? { ...quota, readAt } : quota;
}

/**
 * What an OpenAI 429 teaches: a limit on time when the requests or tokens budget is spent, with the
 * wait until the spent budget's reset (the longest, when both are) where no Retry-After was given.
 */
export function openAIRefusal(headers: Headers, failure: ProviderFailure, readAt?: number): ProviderFailure {
  const quota = openAIQuota(headers, readAt);
  const spent = [quota, budget(headers, 'tokens')].filter(
    (b): b is RequestQuota => b !== undefined && b.remaining < 1,
  );
  const taught: ProviderFailure = { ...failure, ...(quota ? { quota } : {}) };
  if (spent.length === 0) return taught;
  const reset = Math.max(...spent.map((b) => b.resetMs));
  return { ...taught, timeLimit: true, retryAfterMs: failure.retryAfterMs ?? reset };
}

/** Quota ids and limits name their period: `…PerMinute…`, `…PerDay…`, `…PerHour…`, `…PerSecond…`. */
const PERIOD = /Per(Second|Minute|Hour|Day)/i;

/**
 * True when a Gemini error's details mark a quota on time: a `google.rpc.QuotaFailure` (every quota
 * of the Gemini API is a rate per minute or per day), or an ErrorInfo whose `quota_limit` names a
 * period.
 */
export function geminiTimeLimit(details: unknown): boolean {
  if (!Array.isArray(details)) return false;
  return details.some((detail) => {
    if (!isRecord(detail)) return false;
    const type = typeof detail['@type'] === 'string' ? detail['@type'] : '';
    if (type.endsWith('google.rpc.QuotaFailure') && Array.isArray(detail.violations)) return true;
    const metadata = isRecord(detail.metadata) ? detail.metadata : {};
    const limit = metadata.quota_limit;
    return type.endsWith('google.rpc.ErrorInfo') && typeof limit === 'string' && PERIOD.test(limit);
  });
}
