import type { Config } from '../config/config.js';
import type { Clock } from '../runtime/clock.js';
import { readCompatibleUpstreams, readFalEndpoints } from './catalog-blocks.js';
import { createCircuitBreaker, withCircuitBreaker } from './circuit-breaker.js';
import { createFalProvider } from './fal-provider.js';
import { createGeminiProvider } from './gemini-provider.js';
import { createLocalProvider } from './local-provider.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ImageProvider } from './provider.js';
import { createReplicateProvider } from './replicate-provider.js';

export interface ProviderRegistry {
  get(name: string): ImageProvider | undefined;
  names(): string[];
  /** The deployment-wide key per provider (from the environment), where one is set. */
  deploymentKeys: Record<string, string | undefined>;
}

/** Builds every provider Atelier knows from configuration. A new upstream is one file plus a line here. */
export function createProviderRegistry({
  config,
  clock,
}: {
  config: Config;
  clock: Clock;
}): ProviderRegistry {
  const providers = new Map<string, ImageProvider>();
  const add = (provider: ImageProvider) => providers.set(provider.name, provider);

  add(createLocalProvider({ clock, latencyMs: config.localLatencyMs }));
  // Real upstreams: each behind its own circuit breaker (5 faults in a row → 30 s fail-fast, then a probe).
  const now = () => clock.now();
  const guarded = (provider: ImageProvider) => withCircuitBreaker(provider, createCircuitBreaker({ now }));
  const { gemini, openai, replicate } = config.providers;
  const requestTimeoutMs = config.upstreamTimeoutMs;
  add(guarded(createGeminiProvider({ baseUrl: gemini.baseUrl, requestTimeoutMs, now })));
  add(guarded(createOpenAIProvider({ baseUrl: openai.baseUrl, requestTimeoutMs, now })));
  add(guarded(createReplicateProvider({ baseUrl: replicate.baseUrl, now })));
  const { catalogPath } = config;
  const endpoints = readFalEndpoints(catalogPath);
  add(guarded(createFalProvider({ baseUrl: config.providers.fal.baseUrl, endpoints, now })));
  // The catalog's OpenAI-compatible servers: each a provider of its own, with the key its variable holds.
  const upstreamKeys: Record<string, string | undefined> = {};
  for (const [name, upstream] of Object.entries(readCompatibleUpstreams(catalogPath))) {
    add(guarded(createOpenAICompatibleProvider({ name, upstream, requestTimeoutMs, now })));
    if (upstream.apiKeyEnv) upstreamKeys[name] = config.readEnv(upstream.apiKeyEnv);
  }

  return {
    get: (name) => providers.get(name),
    names: () => [...providers.keys()],
    deploymentKeys: {
      gemini: config.providers.gemini.apiKey,
      openai: config.providers.openai.apiKey,
      replicate: config.providers.replicate.apiKey,
      fal: config.providers.fal.apiKey,
      ...upstreamKeys,
    },
  };
}
