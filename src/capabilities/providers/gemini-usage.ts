/**
 * Google's `usageMetadata` (GenerateContentResponseUsageMetadata of @google/genai: promptTokenCount,
 * candidatesTokenCount, thoughtsTokenCount, totalTokenCount, promptTokensDetails[] of
 * ModalityTokenCount { modality, tokenCount }) read into Atelier's neutral ImageUsage.
 *
 * The answer is proto3 JSON, which leaves out counts that are zero: an absent count reads as 0, as
 * long as at least one of the three totals is there (no usageMetadata, or none of them, is no
 * usage: Atelier never invents tokens). promptTokensDetails' TEXT entries (MODALITY_UNSPECIFIED is
 * "treated as TEXT") become text_tokens and IMAGE entries image_tokens; other modalities (audio,
 * video, documents) stay in input_tokens only. Cache, tool-use and per-modality output counts are
 * not kept.
 */
import type { ImageUsage } from './provider.js';
import { isRecord } from './upstream-json.js';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/** text_tokens and image_tokens of promptTokensDetails, when it names either modality. */
function inputDetails(details: unknown): ImageUsage['input_tokens_details'] {
  if (!Array.isArray(details)) return undefined;
  let text_tokens = 0;
  let image_tokens = 0;
  let named = false;
  for (const entry of details) {
    if (!isRecord(entry)) continue;
    const tokens = count(entry.tokenCount) ?? 0;
    if (entry.modality === 'TEXT' || entry.modality === 'MODALITY_UNSPECIFIED') {
      text_tokens += tokens;
      named = true;
    } else if (entry.modality === 'IMAGE') {
      image_tokens += tokens;
      named = true;
    }
  }
  return named ? { image_tokens, text_tokens } : undefined;
}

/** The usage of a generateContent answer's `usageMetadata`, when it reports any. */
export function geminiUsageOf(metadata: unknown): ImageUsage | undefined {
  if (!isRecord(metadata)) return undefined;
  const prompt = count(metadata.promptTokenCount);
  const candidates = count(metadata.candidatesTokenCount);
  const total = count(metadata.totalTokenCount);
  if (prompt === undefined && candidates === undefined && total === undefined) return undefined;
  const thinking = count(metadata.thoughtsTokenCount);
  const usage: ImageUsage = {
    input_tokens: prompt ?? 0,
    output_tokens: candidates ?? 0,
    // Google's total is the sum of prompt, candidates, tool-use prompt and thoughts.
    total_tokens: total ?? (prompt ?? 0) + (candidates ?? 0) + (thinking ?? 0),
  };
  const details = inputDetails(metadata.promptTokensDetails);
  if (details) usage.input_tokens_details = details;
  if (thinking) usage.thinking_tokens = thinking;
  return usage;
}
