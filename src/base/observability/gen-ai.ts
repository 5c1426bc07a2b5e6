/**
 * OpenTelemetry's GenAI semantic conventions where they fit an image request: the names of the
 * providers it lists (`gen_ai.provider.name`); the upstreams it does not list keep Atelier's name.
 */
const PROVIDER_NAMES: Record<string, string> = {
  openai: 'openai',
  gemini: 'gcp.gemini',
};

/** `gen_ai.provider.name` of an Atelier provider (`openai`, `gcp.gemini`, else Atelier's own name). */
export const genAiProviderName = (provider: string): string => PROVIDER_NAMES[provider] ?? provider;
