import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type GenerateContentResponseUsageMetadata, MediaModality } from '@google/genai';
import {
  FAKE_IMAGE_INPUT_TOKENS,
  FAKE_IMAGE_OUTPUT_TOKENS,
  FAKE_THOUGHT_TOKENS,
  type FakeGemini,
  startFakeGemini,
} from '../../../test/fakes/providers/fake-gemini.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { createGeminiProvider } from './gemini-provider.js';
import { geminiUsageOf } from './gemini-usage.js';

const KEY = 'AIzaUsageKey-0123456789abcdefghijklmnop';

describe("Gemini's usageMetadata read into the neutral usage", () => {
  test('the counts, the prompt per modality and the thoughts of a Gemini 3 Pro image answer', () => {
    const metadata: GenerateContentResponseUsageMetadata = {
      promptTokenCount: 1378,
      candidatesTokenCount: 1120,
      thoughtsTokenCount: 212,
      totalTokenCount: 2710,
      promptTokensDetails: [
        { modality: MediaModality.TEXT, tokenCount: 258 },
        { modality: MediaModality.IMAGE, tokenCount: 1120 },
      ],
      candidatesTokensDetails: [{ modality: MediaModality.IMAGE, tokenCount: 1120 }],
    };
    assert.deepEqual(geminiUsageOf(metadata), {
      input_tokens: 1378,
      output_tokens: 1120,
      total_tokens: 2710,
      input_tokens_details: { image_tokens: 1120, text_tokens: 258 },
      thinking_tokens: 212,
    });
  });

  test('proto3 JSON leaves out zero counts: absent reads 0, an absent total is the sum', () => {
    assert.deepEqual(geminiUsageOf({ promptTokenCount: 7, candidatesTokenCount: 1290 }), {
      input_tokens: 7,
      output_tokens: 1290,
      total_tokens: 1297,
    });
    assert.deepEqual(geminiUsageOf({ totalTokenCount: 5, promptTokenCount: 5 }), {
      input_tokens: 5,
      output_tokens: 0,
      total_tokens: 5,
    });
  });

  test('MODALITY_UNSPECIFIED counts as text; audio, video and documents stay in the input total only', () => {
    const usage = geminiUsageOf({
      promptTokenCount: 40,
      candidatesTokenCount: 1,
      totalTokenCount: 41,
      promptTokensDetails: [
        { modality: 'MODALITY_UNSPECIFIED', tokenCount: 3 },
        { modality: 'TEXT', tokenCount: 2 },
        { modality: 'AUDIO', tokenCount: 35 },
      ],
    });
    assert.deepEqual(usage?.input_tokens_details, { image_tokens: 0, text_tokens: 5 });
    assert.equal(
      geminiUsageOf({ promptTokenCount: 9, promptTokensDetails: [{ modality: 'VIDEO', tokenCount: 9 }] })
        ?.input_tokens_details,
      undefined,
    );
  });

  test('no usageMetadata, an empty one, or counts that are not counts: no usage (never invented)', () => {
    for (const metadata of [
      undefined,
      null,
      {},
      [],
      'x',
      { promptTokenCount: -1 },
      { totalTokenCount: 1.5 },
    ]) {
      assert.equal(geminiUsageOf(metadata), undefined, JSON.stringify(metadata));
    }
  });
});

describe('the Gemini adapter reports the upstream usage with the image', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini({ apiKey: KEY });
  });
  after(() => fake.close());
  const provider = () => createGeminiProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });

  test('a generate on the pro model: text tokens, image tokens out, thoughts in the total', async () => {
    const outcome = await provider().submit(
      providerRequest({ upstreamModel: 'gemini-3-pro-image', apiKey: KEY }),
    );
    assert.equal(outcome.kind, 'done');
    // 'a lighthouse at dawn' is 20 characters: 5 tokens in the fake.
    assert.deepEqual(outcome.kind === 'done' && outcome.usage, {
      input_tokens: 5,
      output_tokens: FAKE_IMAGE_OUTPUT_TOKENS,
      total_tokens: 5 + FAKE_IMAGE_OUTPUT_TOKENS + FAKE_THOUGHT_TOKENS,
      input_tokens_details: { image_tokens: 0, text_tokens: 5 },
      thinking_tokens: FAKE_THOUGHT_TOKENS,
    });
  });

  test('an edit on the flash model: the reference counts as image tokens; no thoughts', async () => {
    const outcome = await provider().submit(
      providerRequest({
        upstreamModel: 'gemini-3.1-flash-image',
        apiKey: KEY,
        mode: 'edit',
        references: [await referenceImage()],
      }),
    );
    assert.equal(outcome.kind, 'done');
    assert.deepEqual(outcome.kind === 'done' && outcome.usage, {
      input_tokens: 5 + FAKE_IMAGE_INPUT_TOKENS,
      output_tokens: FAKE_IMAGE_OUTPUT_TOKENS,
      total_tokens: 5 + FAKE_IMAGE_INPUT_TOKENS + FAKE_IMAGE_OUTPUT_TOKENS,
      input_tokens_details: { image_tokens: FAKE_IMAGE_INPUT_TOKENS, text_tokens: 5 },
    });
  });
});
