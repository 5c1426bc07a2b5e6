import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GoogleGenAI } from '@google/genai';
import { IMAGE_QUALITIES, type ImageQuality } from '../../src/base/domain/image-qualities.js';
import { gptImageOutputTokens } from '../../src/capabilities/catalog/gpt-image-tokens.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Issue 41: `quality` passes through the Gemini route. Google's imageConfig has no quality, so
 * Atelier reads an extra `generationConfig.imageConfig.quality` (`@google/genai` sends it through
 * `httpOptions.extraBody`; its own imageConfig drops unknown fields), checked against the model's
 * qualities with Google's error shape, and the task is reserved and charged at it. The shipped
 * OpenAI catalog (its `gemini-3.1-flash-image` alias names base-image-2, an OpenAI model with
 * qualities) and a local model without qualities; the fake OpenAI bills the output tokens its
 * formula gives for the quality asked.
 */
const KEY = 'sk-gemini-quality';
const TEXT_TOKENS = 12;
const shipped = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url)), 'utf8'),
);

describe('quality on the Gemini route', () => {
  let t: TestApp;
  let openai: FakeOpenAI;
  let apiKey: string;
  let google: GoogleGenAI;
  let dir: string;

  before(async () => {
    openai = await startFakeOpenAI({
      apiKey: KEY,
      usage: (call) => {
        const [w = 1, h = 1] = String(call.params.size).split('x').map(Number);
        const quality = IMAGE_QUALITIES.find((q) => q === call.params.quality) ?? 'high';
        const output = gptImageOutputTokens(quality, w, h);
        return {
          input_tokens: TEXT_TOKENS,
          input_tokens_details: { text_tokens: TEXT_TOKENS, image_tokens: 0 },
          output_tokens: output,
          total_tokens: TEXT_TOKENS + output,
        };
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'atelier-gemini-quality-'));
    const catalog = join(dir, 'catalog.json');
    const plain = { id: 'plain', provider: 'local', upstreamModel: 'local-v1', modes: ['text'] };
    await writeFile(catalog, JSON.stringify({ models: [...shipped.models, plain] }));
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_OPENAI_API_KEY: KEY,
        ATELIER_OPENAI_BASE_URL: openai.baseUrl,
      },
    });
    apiKey = (await t.createAccount()).apiKey;
    google = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl } });
  });
  after(async () => {
    await t?.close();
    await openai?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (model: string, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/v1beta/models/${model}:generateContent`,
      headers: { 'x-goog-api-key': apiKey },
      payload: payload as Record<string, unknown>,
    });
  /** The task of a response (responseId), as stored: its generation's quality, reservation and cost. */
  const taskOf = (responseId: string | undefined) =>
    t.core.resources.db
      .selectFrom('tasks')
      .innerJoin('generations', 'generations.id', 'tasks.generation_id')
      .select(['generations.quality', 'tasks.cost_reserved_micros', 'tasks.cost_micros'])
      .where('tasks.id', '=', responseId ?? '')
      .executeTakeFirstOrThrow();
  /** What POST /api/v1/quotes says a 1K image of this prompt costs at most, at `quality`. */
  const maxAt = async (prompt: string, quality: ImageQuality) => {
    const quote = await t.app.inject({
      method: 'POST',
      url: '/api/v1/quotes',
      headers: bearer(apiKey),
      payload: { prompt, model: 'base-image-2', imageSize: '1K', quality },
    });
    assert.equal(quote.statusCode, 200, quote.body);
    return quote.json().max_per_image_micros as number;
  };

  test('@google/genai through extraBody: sent upstream, reserved and charged at it', async () => {
    const prompt = 'a quiet harbour';
    const response = await google.models.generateContent({
      model: 'gemini-3.1-flash-image',
      contents: prompt,
      config: {
        responseModalities: ['IMAGE'],
        httpOptions: { extraBody: { generationConfig: { imageConfig: { quality: 'low' } } } },
      },
    });
    assert.equal(response.candidates?.length, 1);
    assert.equal(openai.calls.at(-1)?.params.quality, 'low');
    const task = await taskOf(response.responseId);
    assert.equal(task.quality, 'low');
    assert.equal(Number(task.cost_reserved_micros), await maxAt(prompt, 'low'));
    assert.ok(Number(task.cost_reserved_micros) < (await maxAt(prompt, 'high')), 'below the default');
    // The upstream's tokens at the catalog's prices: $5 / 1M text, $30 / 1M output.
    assert.equal(Number(task.cost_micros), TEXT_TOKENS * 5 + gptImageOutputTokens('low', 1024, 1024) * 30);
  });

  test('REST, snake_case and upper case: image_config.quality MAX', async () => {
    const answer = await post('gemini-3.1-flash-image', {
      contents: [{ parts: [{ text: 'a storm at sea' }] }],
      generation_config: { image_config: { quality: 'MAX' } },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(openai.calls.at(-1)?.params.quality, 'max');
    const task = await taskOf(answer.json().responseId);
    assert.equal(task.quality, 'max');
    assert.equal(Number(task.cost_reserved_micros), await maxAt('a storm at sea', 'max'));
  });

  test('refused in Google’s shape, naming the field, before anything is made', async () => {
    const calls = openai.calls.length;
    const refusal = async (
      model: string,
      quality: unknown,
      message: RegExp,
      field = 'generationConfig.imageConfig.quality',
    ) => {
      const answer = await post(model, {
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { imageConfig: { quality } },
      });
      assert.equal(answer.statusCode, 400, answer.body);
      const { error } = answer.json();
      assert.equal(error.status, 'INVALID_ARGUMENT');
      assert.match(error.message, message);
      const [, badRequest] = error.details;
      assert.deepEqual(
        badRequest.fieldViolations.map((v: { field: string }) => v.field),
        [field],
      );
    };
    await refusal('gemini-3.1-flash-image', 'ultra', /accepted: low, medium, high, xhigh, max/);
    await refusal('plain', 'high', /model plain takes no quality/);
    // A wrong type is the body schema's refusal, which names the top field (as for every field).
    await refusal('plain', 7, /generationConfig\.imageConfig\.quality must be a string/, 'generationConfig');
    assert.equal(openai.calls.length, calls);
    const history = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(history.json().total, 2, 'only the two images above');
  });
});
