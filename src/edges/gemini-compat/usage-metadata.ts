import type { GeminiGenerateResponse } from '../../base/contract/gemini.js';
import type { ReportedUsage } from '../../capabilities/tasks/index.js';

type UsageMetadata = GeminiGenerateResponse['usageMetadata'];

/**
 * Google's `usageMetadata` of the usage the upstreams reported (summed over an answer's images):
 * promptTokenCount ← input, candidatesTokenCount ← output, thoughtsTokenCount ← thinking,
 * totalTokenCount ← total, promptTokensDetails ← the input's TEXT and IMAGE counts (the modalities
 * with tokens, as Google lists them). Empty when no upstream reported any: Atelier never invents
 * tokens.
 */
export function usageMetadataOf(usage: ReportedUsage | undefined): UsageMetadata {
  if (!usage) return {};
  const details = usage.input_tokens_details;
  const perModality = details
    ? [
        { modality: 'TEXT' as const, tokenCount: details.text_tokens },
        { modality: 'IMAGE' as const, tokenCount: details.image_tokens },
      ].filter((entry) => entry.tokenCount > 0)
    : [];
  return {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens,
    ...(usage.thinking_tokens ? { thoughtsTokenCount: usage.thinking_tokens } : {}),
    totalTokenCount: usage.total_tokens,
    ...(perModality.length > 0 ? { promptTokensDetails: perModality } : {}),
  };
}
