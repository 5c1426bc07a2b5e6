import type { Metrics } from '../platform/metrics.js';
import type { ImageProvider, PollOutcome, SubmitOutcome } from './provider.js';
import type { ProviderRegistry } from './provider-registry.js';

/** `ok` (accepted, pending or done), `retry` (a retryable failure) or `failed`, with the failure's cause. */
function outcomeLabels(outcome: SubmitOutcome | PollOutcome): { outcome: string; cause: string } {
  if (outcome.kind !== 'failed') return { outcome: 'ok', cause: '' };
  return { outcome: outcome.retryable ? 'retry' : 'failed', cause: outcome.cause ?? '' };
}

/** A provider whose submits and polls are timed and counted by outcome. */
function measured(provider: ImageProvider, metrics: Metrics): ImageProvider {
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
    submit: (request) => submit(() => provider.submit(request)),
    poll: (request) => poll(() => provider.poll(request)),
  };
}

/**
 * The registry with every provider measured (upstream call latency and outcomes), and the circuit
 * breakers' state reported to `metrics` at scrape time.
 */
export function measuredProviders(registry: ProviderRegistry, metrics: Metrics): ProviderRegistry {
  const wrapped = new Map<string, ImageProvider>();
  for (const name of registry.names()) {
    const provider = registry.get(name);
    if (provider) wrapped.set(name, measured(provider, metrics));
  }
  metrics.probeProviders(() =>
    [...wrapped.values()].map((provider) => ({
      provider: provider.name,
      open: provider.available?.() === false,
    })),
  );
  return { ...registry, get: (name) => wrapped.get(name) ?? registry.get(name) };
}
