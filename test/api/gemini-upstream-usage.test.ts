import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import {
  type FakeGemini,
  FAKE_IMAGE_INPUT_TOKENS as IMAGE_IN,
  FAKE_IMAGE_OUTPUT_TOKENS as IMAGE_OUT,
  startFakeGemini,
  FAKE_THOUGHT_TOKENS as THOUGHTS,
} from '../fakes/providers/fake-gemini.js';
import { makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Token usage from a Gemini upstream (issue 29): the adapter keeps Google's usageMetadata on each
 * task, the Gemini-native route answers it summed as usageMetadata, /v1/images as OpenAI's usage.
 * The shipped Gemini catalog against the loopback Gemini, whose counts are: a token per 4 prompt
 * characters, IMAGE_IN per reference, IMAGE_OUT per image made, THOUGHTS on the pro model.
 */

const KEY = 'AIzaUsageUpstream-0123456789abcdefghij';
/** 'a lighthouse at dawn': 20 characters. */
const PROMPT = 'a lighthouse at dawn';
const TEXT = 5;

describe('usage from a Gemini upstream, on both compatible routes', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  let google: GoogleGenAI;
  let openai: OpenAI;

  before(async () => {
    gemini = await startFakeGemini({ apiKey: KEY });
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: fileURLToPath(new URL('../../catalogs/gemini.json', import.meta.url)),
        ATELIER_GEMINI_API_KEY: KEY,
        ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
      },
    });
    const { apiKey } = await t.createAccount();
    google = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl } });
    openai = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(async () => {
    await t?.close();
    await gemini?.close();
  });

  test('@google/genai on the Gemini route: usageMetadata summed over the candidates, thoughts included', async () => {
    const response = await google.models.generateContent({
      model: 'gemini-3-pro-image',
      contents: PROMPT,
      config: { responseModalities: ['IMAGE'], candidateCount: 2 },
    });
    assert.equal(response.candidates?.length, 2);
    assert.deepEqual(response.usageMetadata, {
      promptTokenCount: 2 * TEXT,
      candidatesTokenCount: 2 * IMAGE_OUT,
      thoughtsTokenCount: 2 * THOUGHTS,
      totalTokenCount: 2 * (TEXT + IMAGE_OUT + THOUGHTS),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 * TEXT }],
    });
  });

  test('@google/genai, an edit with an inline image: the prompt per modality', async () => {
    const png = await makePng(300, 200);
    const response = await google.models.generateContent({
      model: 'gemini-3.1-flash-image',
      contents: [{ text: PROMPT }, { inlineData: { mimeType: 'image/png', data: png.toString('base64') } }],
      config: { responseModalities: ['TEXT', 'IMAGE'] },
    });
    assert.deepEqual(response.usageMetadata, {
      promptTokenCount: TEXT + IMAGE_IN,
      candidatesTokenCount: IMAGE_OUT,
      totalTokenCount: TEXT + IMAGE_IN + IMAGE_OUT,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: TEXT },
        { modality: 'IMAGE', tokenCount: IMAGE_IN },
      ],
    });
  });

  test('openai on /v1/images/generations: usage mapped from usageMetadata and summed', async () => {
    const response = await openai.images.generate({ model: 'gemini-3-pro-image', prompt: PROMPT, n: 2 });
    assert.equal(response.data?.length, 2);
    assert.deepEqual(response.usage, {
      input_tokens: 2 * TEXT,
      output_tokens: 2 * IMAGE_OUT,
      // Google's total counts the thoughts, which are neither prompt nor candidates.
      total_tokens: 2 * (TEXT + IMAGE_OUT + THOUGHTS),
      input_tokens_details: { image_tokens: 0, text_tokens: 2 * TEXT },
    });
  });

  test('openai on /v1/images/edits, and its stream: the reference counts as image tokens', async () => {
    const image = await toFile(await makePng(300, 200), 'in.png', { type: 'image/png' });
    const expected = {
      input_tokens: TEXT + IMAGE_IN,
      output_tokens: IMAGE_OUT,
      total_tokens: TEXT + IMAGE_IN + IMAGE_OUT,
      input_tokens_details: { image_tokens: IMAGE_IN, text_tokens: TEXT },
    };
    const edited = await openai.images.edit({ model: 'gemini-3.1-flash-image', image, prompt: PROMPT });
    assert.deepEqual(edited.usage, expected);

    const stream = await openai.images.edit({
      model: 'gemini-3.1-flash-image',
      image: await toFile(await makePng(300, 200), 'in.png', { type: 'image/png' }),
      prompt: PROMPT,
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const done = events.at(-1);
    assert.ok(done?.type === 'image_edit.completed', JSON.stringify(events.map((e) => e.type)));
    assert.deepEqual(done.usage, expected);
  });
});
