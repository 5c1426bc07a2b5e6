/**
 * A per-provider circuit breaker. After `failureThreshold` consecutive failures of the upstream
 * itself, new submits fail fast for `openMs`; then one probe submit is let through (half-open):
 * its success closes the circuit, its failure opens it again for another `openMs`.
 *
 * Only failures that say the upstream is unwell count (5xx, network, timeouts, garbage answers,
 * a thrown bug). A refused prompt, one account's bad key or exhausted quota are answers from a
 * working upstream, so they count as successes: one account's 401s must not shut the provider
 * for everyone. The engine's own aborts say nothing either way.
 */
import type { CircuitReport, FailureCause, ImageProvider, SubmitOutcome } from './provider.js';

export type CircuitState = CircuitReport['state'];

export interface CircuitBreaker {
  state(): CircuitState;
  /** true when a submit would be let through now (closed, or a probe is due). */
  canPass(): boolean;
  /** Claims the right to make one call; false means fail fast. Half-open admits one probe at a time. */
  tryAcquire(): boolean;
  recordSuccess(): void;
  recordFailure(): void;
  /** Ends a claimed call that says nothing about the upstream's health (e.g. a refused prompt). */
  recordNeutral(): void;
  /** Time until a probe is due while open; 0 otherwise. */
  msUntilProbe(): number;
  /** Upstream failures in a row since the last success. */
  consecutiveFailures(): number;
}

export interface CircuitBreakerOptions {
  now: () => number;
  /** Consecutive upstream failures that open the circuit (default 5). */
  failureThreshold?: number;
  /** How long the circuit stays open before a probe (default 30 s). */
  openMs?: number;
  /**
   * A probe that has not reported after this long is presumed lost and another one is allowed
   * (default 15 minutes: longer than any adapter's own deadline).
   */
  probeTimeoutMs?: number;
}

/** Creates a closed circuit breaker. */
export function createCircuitBreaker({
  now,
  failureThreshold = 5,
  openMs = 30_000,
  probeTimeoutMs = 15 * 60_000,
}: CircuitBreakerOptions): CircuitBreaker {
  if (failureThreshold < 1) throw new Error('failureThreshold must be at least 1');
  let failures = 0;
  let openedAt: number | null = null;
  let probeStartedAt: number | null = null;

  const probeInFlight = () => probeStartedAt !== null && now() - probeStartedAt < probeTimeoutMs;
  const state = (): CircuitState => {
    if (openedAt === null) return 'closed';
    return now() - openedAt >= openMs ? 'half_open' : 'open';
  };

  return {
    state,
    canPass() {
      const current = state();
      return current === 'closed' || (current === 'half_open' && !probeInFlight());
    },
    tryAcquire() {
      const current = state();
      if (current === 'closed') return true;
      if (current === 'open' || probeInFlight()) return false;
      probeStartedAt = now();
      return true;
    },
    recordSuccess() {
      failures = 0;
      openedAt = null;
      probeStartedAt = null;
    },
    recordFailure() {
      const current = state();
      // A call admitted before the circuit opened, failing late: old news, already acted upon.
      // Re-opening on it would keep the circuit shut for as long as calls were in flight.
      if (current === 'open') return;
      if (current === 'half_open') {
        // The probe failed: stay open for another period.
        openedAt = now();
        probeStartedAt = null;
        return;
      }
      failures += 1;
      if (failures >= failureThreshold) {
        openedAt = now();
        probeStartedAt = null;
      }
    },
    recordNeutral() {
      // A probe that proved nothing frees the slot for the next one.
      if (state() === 'half_open') probeStartedAt = null;
    },
    msUntilProbe() {
      return openedAt === null ? 0 : Math.max(0, openedAt + openMs - now());
    },
    consecutiveFailures: () => failures,
  };
}

const UNHEALTHY: ReadonlySet<FailureCause> = new Set([
  'upstream_error',
  'network',
  'timeout',
  'bad_response',
]);
const NEUTRAL: ReadonlySet<FailureCause> = new Set(['canceled', 'circuit_open']);

function verdict(outcome: SubmitOutcome): 'success' | 'failure' | 'neutral' {
  if (outcome.kind !== 'failed') return 'success';
  if (outcome.cause === undefined) return outcome.retryable ? 'failure' : 'success';
  if (UNHEALTHY.has(outcome.cause)) return 'failure';
  if (NEUTRAL.has(outcome.cause)) return 'neutral';
  return 'success';
}

/** A breaker that opened or closed again, with the upstream's last errors (alerts). */
export interface BreakerChange {
  provider: string;
  state: 'open' | 'closed';
  consecutiveFailures: number;
  /** The last few error messages of failed submits, newest last. */
  lastErrors: string[];
}

/** How many of the upstream's last error messages a breaker change carries. */
const LAST_ERRORS = 3;

/** Records a submit's verdict in `breaker`, telling `onChange` when the circuit opened or closed. */
function recorder(provider: string, breaker: CircuitBreaker, onChange?: (change: BreakerChange) => void) {
  const lastErrors: string[] = [];
  return (result: 'success' | 'failure' | 'neutral', message?: string) => {
    const before = breaker.state();
    if (result === 'success') breaker.recordSuccess();
    else if (result === 'failure') breaker.recordFailure();
    else breaker.recordNeutral();
    if (message !== undefined && result === 'failure') {
      lastErrors.push(message.slice(0, 500));
      if (lastErrors.length > LAST_ERRORS) lastErrors.shift();
    }
    const after = breaker.state();
    if (!onChange || (before === 'closed') === (after === 'closed')) return;
    const state = after === 'closed' ? 'closed' : 'open';
    onChange({
      provider,
      state,
      consecutiveFailures: breaker.consecutiveFailures(),
      lastErrors: [...lastErrors],
    });
  };
}

/**
 * Wraps a provider so that its submits go through `breaker`. Polls of jobs already running pass
 * untouched: stopping them would lose work the upstream has accepted. `onChange` hears the circuit
 * open (from closed) and close again.
 */
export function withCircuitBreaker(
  provider: ImageProvider,
  breaker: CircuitBreaker,
  onChange?: (change: BreakerChange) => void,
): ImageProvider & { available(): boolean; circuit(): CircuitReport } {
  const record = recorder(provider.name, breaker, onChange);
  const wrapped: ImageProvider & { available(): boolean; circuit(): CircuitReport } = {
    name: provider.name,
    requiresKey: provider.requiresKey,
    submitsInline: provider.submitsInline,
    expectedDurationMs: (request) => provider.expectedDurationMs(request),
    poll: (request) => provider.poll(request),
    available: () => breaker.canPass() && (provider.available?.() ?? true),
    circuit: () => ({
      state: breaker.state(),
      consecutiveFailures: breaker.consecutiveFailures(),
      msUntilProbe: breaker.msUntilProbe(),
    }),
    // Model-list questions are not image work: they pass whatever the circuit's state.
    ...(provider.checkModels && { checkModels: provider.checkModels.bind(provider) }),
    // Absent unless the provider sets it: the engine's default backoff applies then.
    ...(provider.pollIntervalMs !== undefined && { pollIntervalMs: provider.pollIntervalMs }),

    async submit(request) {
      if (!breaker.tryAcquire()) {
        return {
          kind: 'failed',
          message: `provider ${provider.name} unavailable: too many upstream failures in a row, retrying later`,
          retryable: true,
          retryAfterMs: Math.max(1000, breaker.msUntilProbe()),
          cause: 'circuit_open',
        };
      }
      let outcome: SubmitOutcome;
      try {
        outcome = await provider.submit(request);
      } catch (error) {
        record('failure', error instanceof Error ? error.message : String(error));
        throw error;
      }
      record(verdict(outcome), outcome.kind === 'failed' ? outcome.message : undefined);
      return outcome;
    },
  };
  if (provider.cancel) {
    const cancel = provider.cancel.bind(provider);
    wrapped.cancel = (request) => cancel(request);
  }
  return wrapped;
}
