import { dirname, resolve } from 'node:path';
import type { Clock } from '../../base/runtime/clock.js';
import type { Config } from '../../infra/config/config.js';
import { readCompatibleUpstreams, readFalEndpoints } from './catalog-blocks.js';
import { type BreakerChange, createCircuitBreaker, withCircuitBreaker } from './circuit-breaker.js';
import { createComfyUIProvider } from './comfyui-provider.js';
import type { ComfyRouteSettings } from './comfyui-workflow.js';
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
  /** Hands the catalog's per-route settings to the providers that take some (ComfyUI's workflows). */
  configure?(
    models: ReadonlyArray<{
      provider: string;
      upstreamModel: string;
      comfyui?: ComfyRouteSettings | undefined;
    }>,
  ): void;
}

/** Builds every provider Atelier knows from configuration. A new upstream is one file plus a line here. */
export function createProviderRegistry({
  config,
  clock,
  onBreakerChange,
}: {
  config: Config;
  clock: Clock;
  /** Hears each upstream's circuit open and close again (alerts). */
  onBreakerChange?: ((change: BreakerChange) => void) | undefined;
}): ProviderRegistry {
  const providers = new Map<string, ImageProvider>();
  const add = (provider: ImageProvider) => providers.set(provider.name, provider);

  add(createLocalProvider({ clock, latencyMs: config.localLatencyMs }));
  // Real upstreams: each behind its own circuit breaker (5 faults in a row → 30 s fail-fast, then a probe).
  const now = () => clock.now();
  const guarded = (provider: ImageProvider) =>
    withCircuitBreaker(provider, createCircuitBreaker({ now }), onBreakerChange);
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
  // ComfyUI: workflow paths are relative to the catalog file's folder.
  const comfyui = createComfyUIProvider({
    urls: config.providers.comfyui.urls,
    maxQueue: config.providers.comfyui.maxQueue,
    workflowDir: config.catalogPath ? dirname(resolve(config.catalogPath)) : process.cwd(),
  });
  add(guarded(comfyui));

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
    configure(models) {
      const comfyRoutes = new Map<string, ComfyRouteSettings>();
      for (const model of models)
        if (model.provider === 'comfyui' && model.comfyui)
          comfyRoutes.set(model.upstreamModel, model.comfyui);
      comfyui.configure(comfyRoutes);
    },
  };
}
