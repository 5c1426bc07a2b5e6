// The providers capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/providers/ import from this file only (src/architecture.test.ts holds it).

export { measuredProviders } from './call-metrics.js';
export { readCompatibleUpstreams, readFalEndpoints, routeProblems } from './catalog-blocks.js';
export type { BreakerChange } from './circuit-breaker.js';
export { falEndpointsSchema, falInput } from './fal-inputs.js';
export { createGeminiProvider } from './gemini-provider.js';
export { compatibleUpstreamsSchema, nearestListedSize } from './openai-compatible-provider.js';
export { createOpenAIProvider } from './openai-provider.js';
export { openAISizing, sizeFor } from './openai-sizes.js';
export type {
  AnsweredPart,
  AnsweredTurn,
  ConversationTurn,
  ImageProvider,
  ImageUsage,
  PartialFrame,
  PollOutcome,
  ProviderFailure,
  ProviderImage,
  ProviderRequest,
  ReferenceImage,
  RequestQuota,
  SubmitOutcome,
} from './provider.js';
export type { ProviderRegistry } from './provider-registry.js';
export { createProviderRegistry } from './provider-registry.js';
export { createReplicateProvider } from './replicate-provider.js';
