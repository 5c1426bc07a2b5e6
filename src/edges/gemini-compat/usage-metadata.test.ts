import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageMetadataOf } from './usage-metadata.js';

test("usageMetadata in Google's names: counts, thoughts, the prompt's modalities with tokens; empty when none", () => {
  assert.deepEqual(usageMetadataOf(undefined), {});
  assert.deepEqual(
    usageMetadataOf({
      input_tokens: 268,
      output_tokens: 2240,
      total_tokens: 2808,
      input_tokens_details: { image_tokens: 258, text_tokens: 10 },
      thinking_tokens: 300,
    }),
    {
      promptTokenCount: 268,
      candidatesTokenCount: 2240,
      thoughtsTokenCount: 300,
      totalTokenCount: 2808,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 10 },
        { modality: 'IMAGE', tokenCount: 258 },
      ],
    },
  );
  // An OpenAI upstream's usage: text only, no thoughts.
  assert.deepEqual(
    usageMetadataOf({
      input_tokens: 50,
      output_tokens: 4160,
      total_tokens: 4210,
      input_tokens_details: { image_tokens: 0, text_tokens: 50 },
    }),
    {
      promptTokenCount: 50,
      candidatesTokenCount: 4160,
      totalTokenCount: 4210,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 50 }],
    },
  );
});
