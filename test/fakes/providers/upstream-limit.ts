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
  /**
   * Requests per `windowMs` as OpenAI enforces them: a bucket refilling at that rate, holding
   * `burst` requests when whole (default: the whole rate; OpenAI quantizes a per-minute limit over
   * shorter periods, which a smaller burst stands for). Its state is what the fakes report in
   * OpenAI's `x-ratelimit-*-requests` headers on every answer.
   */
  requestsPerWindow?: number;
  burst?: number;
}

/** The request budget as OpenAI's headers state it. */
export interface BudgetState {
  limit: number;
  remaining: number;
  resetMs: number;
}

export type Admission =
  | { ok: true; done(): void; budget(): BudgetState | undefined }
  | {
      ok: false;
      retryAfterMs: number;
      /** The refusal was the per-window limit (a limit on time), not the calls-at-once one. */
      onTime: boolean;
      budget(): BudgetState | undefined;
    };

export interface UpstreamLimit {
  options: UpstreamLimitOptions;
  /** Changes the upstream's limits from now on (a deployment's upstream changes under it). */
  set(options: UpstreamLimitOptions): void;
  admit(): Admission;
  /** Accepted and refused calls, the most in flight at once, and the start time of each accepted call. */
  stats: {
    accepted: number;
    refused: number;
    maxInFlight: number;
    acceptedAt: number[];
    endedAt: number[];
    refusedAt: number[];
    /** Of the refusals, those of the per-window limits (on time). */
    refusedOnTime: number;
  };
  /** Mean calls in flight from the first accepted call's start to the last one's end. */
  meanInFlight(): number;
  /** The most calls accepted within any window of `windowMs` (counted by the upstream). */
  busiestWindow(): number;
}

export function createUpstreamLimit(initial: UpstreamLimitOptions): UpstreamLimit {
  let options = initial;
  let windowMs = options.windowMs ?? 60_000;
  let inFlight = 0;
  // The requests bucket: tokens, as of `filledAt`.
  let tokens = options.burst ?? options.requestsPerWindow ?? 0;
  let filledAt = Date.now();
  const bucket = (): BudgetState | undefined => {
    const rate = options.requestsPerWindow;
    if (rate === undefined) return undefined;
    const whole = options.burst ?? rate;
    const perMs = rate / windowMs;
    const now = Date.now();
    tokens = Math.min(whole, tokens + (now - filledAt) * perMs);
    filledAt = now;
    return { limit: rate, remaining: Math.floor(tokens), resetMs: Math.ceil((whole - tokens) / perMs) };
  };
  const stats = {
    accepted: 0,
    refused: 0,
    maxInFlight: 0,
    acceptedAt: [] as number[],
    endedAt: [] as number[],
    refusedAt: [] as number[],
    refusedOnTime: 0,
  };
  const refuse = (retryAfterMs: number, onTime: boolean, now: number): Admission => {
    stats.refused++;
    stats.refusedAt.push(now);
    if (onTime) stats.refusedOnTime++;
    return { ok: false, retryAfterMs, onTime, budget: bucket };
  };
  return {
    get options() {
      return options;
    },
    set(next) {
      options = next;
      windowMs = next.windowMs ?? 60_000;
      tokens = next.burst ?? next.requestsPerWindow ?? 0;
      filledAt = Date.now();
    },
    stats,
    admit() {
      const now = Date.now();
      if (options.maxInFlight !== undefined && inFlight >= options.maxInFlight)
        return refuse(options.retryAfterMs ?? 1000, false, now);
      if (options.perWindow !== undefined) {
        const inWindow = stats.acceptedAt.filter((at) => at > now - windowMs);
        if (inWindow.length >= options.perWindow)
          return refuse(Math.max(1, (inWindow[0] ?? now) + windowMs - now), true, now);
      }
      const budget = bucket();
      if (budget && tokens < 1 && options.requestsPerWindow !== undefined) {
        // Retry-After: when the bucket holds one request again.
        const perMs = options.requestsPerWindow / windowMs;
        return refuse(Math.max(1, Math.ceil((1 - tokens) / perMs)), true, now);
      }
      if (budget) tokens -= 1;
      inFlight++;
      stats.accepted++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      stats.acceptedAt.push(now);
      let ended = false;
      return {
        ok: true,
        budget: bucket,
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

/** OpenAI's headers of a request budget (`x-ratelimit-*-requests`), resets as Go-style durations. */
export function openAIBudgetHeaders(budget: BudgetState | undefined): Record<string, string> {
  if (!budget) return {};
  const seconds = budget.resetMs / 1000;
  const reset =
    budget.resetMs < 1000
      ? `${budget.resetMs}ms`
      : seconds < 60
        ? `${Number(seconds.toFixed(3))}s`
        : `${Math.floor(seconds / 60)}m${Number((seconds % 60).toFixed(3))}s`;
  return {
    'x-ratelimit-limit-requests': String(budget.limit),
    'x-ratelimit-remaining-requests': String(budget.remaining),
    'x-ratelimit-reset-requests': reset,
  };
}

/** Calls the fakes hold for their latency right now (a test on virtual time waits on nothing else for them). */
let held = 0;
export const callsHeld = (): number => held;

/** Waits the limit's latency (an accepted call's time upstream). */
export function upstreamLatency(limit: UpstreamLimit | undefined): Promise<void> {
  const ms = limit?.options.latencyMs ?? 0;
  if (ms <= 0) return Promise.resolve();
  held++;
  return new Promise((resolve) =>
    setTimeout(() => {
      held--;
      resolve();
    }, ms),
  );
}
