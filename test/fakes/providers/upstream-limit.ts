/**
 * An upstream's own rate limit, for the loopback fakes: calls in flight at once and calls accepted
 * per window (a sliding window, as OpenAI's and Gemini's per-minute limits behave), each refused
 * call answered in the provider's shape by the fake that uses it. The limiter keeps the upstream's
 * own count, which is what the capacity tests measure pace and overruns with.
 */
export interface UpstreamLimitOptions {
  /** Calls answered at once; past it, a 429. */
  maxInFlight?: number;
  /** Calls accepted per `windowMs`; past it, a 429 until the window has room. */
  perWindow?: number;
  windowMs?: number;
  /** How long each accepted call takes before its answer. */
  latencyMs?: number;
  /** The Retry-After of a concurrency refusal (a window refusal names when the window frees). */
  retryAfterMs?: number;
}

export type Admission = { ok: true; done(): void } | { ok: false; retryAfterMs: number };

export interface UpstreamLimit {
  options: UpstreamLimitOptions;
  admit(): Admission;
  /** Accepted and refused calls, the most in flight at once, and the start time of each accepted call. */
  stats: {
    accepted: number;
    refused: number;
    maxInFlight: number;
    acceptedAt: number[];
    endedAt: number[];
    refusedAt: number[];
  };
  /** Mean calls in flight from the first accepted call's start to the last one's end. */
  meanInFlight(): number;
  /** The most calls accepted within any window of `windowMs` (counted by the upstream). */
  busiestWindow(): number;
}

export function createUpstreamLimit(options: UpstreamLimitOptions): UpstreamLimit {
  const windowMs = options.windowMs ?? 60_000;
  let inFlight = 0;
  const stats = {
    accepted: 0,
    refused: 0,
    maxInFlight: 0,
    acceptedAt: [] as number[],
    endedAt: [] as number[],
    refusedAt: [] as number[],
  };
  return {
    options,
    stats,
    admit() {
      const now = Date.now();
      if (options.maxInFlight !== undefined && inFlight >= options.maxInFlight) {
        stats.refused++;
        stats.refusedAt.push(now);
        return { ok: false, retryAfterMs: options.retryAfterMs ?? 1000 };
      }
      if (options.perWindow !== undefined) {
        const inWindow = stats.acceptedAt.filter((at) => at > now - windowMs);
        if (inWindow.length >= options.perWindow) {
          stats.refused++;
          stats.refusedAt.push(now);
          return { ok: false, retryAfterMs: Math.max(1, (inWindow[0] ?? now) + windowMs - now) };
        }
      }
      inFlight++;
      stats.accepted++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      stats.acceptedAt.push(now);
      let ended = false;
      return {
        ok: true,
        done: () => {
          if (ended) return;
          ended = true;
          inFlight--;
          stats.endedAt.push(Date.now());
        },
      };
    },
    meanInFlight() {
      const first = stats.acceptedAt[0];
      const last = Math.max(...stats.endedAt);
      if (first === undefined || stats.endedAt.length === 0 || last <= first) return 0;
      const busy =
        stats.endedAt.reduce((sum, end) => sum + end, 0) -
        stats.acceptedAt.slice(0, stats.endedAt.length).reduce((sum, start) => sum + start, 0);
      return busy / (last - first);
    },
    busiestWindow() {
      const times = stats.acceptedAt;
      let best = 0;
      let start = 0;
      for (let end = 0; end < times.length; end++) {
        while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start++;
        best = Math.max(best, end - start + 1);
      }
      return best;
    },
  };
}

/** Waits the limit's latency (an accepted call's time upstream). */
export function upstreamLatency(limit: UpstreamLimit | undefined): Promise<void> {
  const ms = limit?.options.latencyMs ?? 0;
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
