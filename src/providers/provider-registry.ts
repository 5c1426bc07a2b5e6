import type { Config } from '../config/config.js';
import type { Clock } from '../platform/clock.js';
import { createLocalProvider } from './local-provider.js';
import type { ImageProvider } from './provider.js';

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

  return {
    get: (name) => providers.get(name),
    names: () => [...providers.keys()],
    deploymentKeys: {
      gemini: config.providers.gemini.apiKey,
      openai: config.providers.openai.apiKey,
      replicate: config.providers.replicate.apiKey,
    },
  };
}
