import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { SECONDS } from '../../base/observability/metrics.js';
import type { ImageProvider, PollOutcome, SubmitOutcome } from './provider.js';
import type { ProviderRegistry } from './provider-registry.js';

/**
 * The providers' metrics: upstream calls by outcome, tasks failed for a missing model (this
 * node's), and the circuit breakers' state, read through `breakers` when scraped.
 */
function createProviderMetrics(
  registry: Registry,
  breakers: () => Array<{ provider: string; open: boolean }>,
) {
  const registers = [registry];
  return {
    upstreamCallSeconds: new Histogram({
      name: 'atelier_upstream_call_duration_seconds',
      help: 'Upstream calls (submit, poll) by provider and outcome (ok, retry, failed) with the failure cause',
      labelNames: ['provider', 'phase', 'outcome', 'cause'] as const,
      buckets: SECONDS,
      registers,
    }),
    tasksFailedModelMissing: new Counter({
      name: 'atelier_tasks_failed_model_missing_total',
      help: 'Tasks failed because the upstream answered that their model does not exist (shut down or renamed)',
      labelNames: ['provider', 'upstream_model'] as const,
      registers,
    }),
    upstreamBreakerOpen: new Gauge({
      name: 'atelier_upstream_circuit_open',
      help: '1 while the circuit breaker of a provider fails submits fast (open or half-open), else 0',
      labelNames: ['provider'] as const,
      registers,
      collect() {
        for (const { provider, open } of breakers()) this.set({ provider }, open ? 1 : 0);
      },
    }),
  };
}

type ProviderMetrics = ReturnType<typeof createProviderMetrics>;

/** `ok` (accepted, pending or done), `retry` (a retryable failure) or `failed`, with the failure's cause. */
function outcomeLabels(outcome: SubmitOutcome | PollOutcome): { outcome: string; cause: string } {
  if (outcome.kind !== 'failed') return { outcome: 'ok', cause: '' };
  return { outcome: outcome.retryable ? 'retry' : 'failed', cause: outcome.cause ?? '' };
}

/** The replacement the catalog names for an upstream model (its lifecycle), if any. */
export type ReplacementLookup = (provider: string, upstreamModel: string) => string | undefined;

/**
 * A submit failed because the upstream model is gone: the message names the model's replacement
 * when the catalog knows it, and the task is counted.
 */
function modelMissing(
  outcome: SubmitOutcome,
  provider: string,
  upstreamModel: string,
  metrics: ProviderMetrics,
  replacementOf: ReplacementLookup,
): SubmitOutcome {
  if (outcome.kind !== 'failed' || outcome.cause !== 'model_not_found') return outcome;
  metrics.tasksFailedModelMissing.inc({ provider, upstream_model: upstreamModel });
  const replacement = replacementOf(provider, upstreamModel);
  const advice = replacement
    ? `; its replacement is ${replacement}: point the catalog entry at it (see bin/atelier catalog check)`
    : '; the model may have been shut down: update the catalog entry (see bin/atelier catalog check)';
  return { ...outcome, message: `${outcome.message}${advice}` };
}

/** A provider whose submits and polls are timed and counted by outcome. */
function measured(
  provider: ImageProvider,
  metrics: ProviderMetrics,
  replacementOf: ReplacementLookup,
): ImageProvider {
  const timed =
    (phase: 'submit' | 'poll') =>
    async <T extends SubmitOutcome | PollOutcome>(call: () => Promise<T>): Promise<T> => {
      const end = metrics.upstreamCallSeconds.startTimer({ provider: provider.name, phase });
      try {
        const outcome = await call();
        end(outcomeLabels(outcome));
        return outcome;
      } catch (error) {
        end({ outcome: 'failed', cause: 'error' });
        throw error;
      }
    };
  const submit = timed('submit');
  const poll = timed('poll');
  // Providers are plain objects of closures: a copy with two calls replaced behaves the same.
  return {
    ...provider,
    submit: async (request) =>
      modelMissing(
        await submit(() => provider.submit(request)),
        provider.name,
        request.upstreamModel,
        metrics,
        replacementOf,
      ),
    poll: (request) => poll(() => provider.poll(request)),
  };
}

/**
 * The registry with every provider measured (upstream call latency and outcomes, tasks failed for a
 * missing model, whose message then names the catalog's replacement), and the circuit breakers'
 * state reported at scrape time; the metrics are registered in `metricsRegistry`.
 */
export function measuredProviders(
  registry: ProviderRegistry,
  metricsRegistry: Registry,
  replacementOf: ReplacementLookup = () => undefined,
): ProviderRegistry {
  const wrapped = new Map<string, ImageProvider>();
  const metrics = createProviderMetrics(metricsRegistry, () =>
    [...wrapped.values()].map((provider) => ({
      provider: provider.name,
      open: provider.available?.() === false,
    })),
  );
  for (const name of registry.names()) {
    const provider = registry.get(name);
    if (provider) wrapped.set(name, measured(provider, metrics, replacementOf));
  }
  return { ...registry, get: (name) => wrapped.get(name) ?? registry.get(name) };
}
