import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import OpenAI, { toFile } from 'openai';
import {
  FAKE_IMAGE_OUTPUT_TOKENS as GEMINI_OUT,
  FAKE_THOUGHT_TOKENS as GEMINI_THOUGHTS,
  startFakeGemini,
} from '../fakes/providers/fake-gemini.js';
import {
  FAKE_IMAGE_INPUT_TOKENS as OPENAI_IMAGE_IN,
  startFakeOpenAI,
} from '../fakes/providers/fake-openai.js';
import { startFakeReplicate } from '../fakes/providers/fake-replicate.js';
import {
  MODELS as REPLICATE_MODELS,
  TOKEN as REPLICATE_TOKEN,
} from '../fakes/providers/replicate-test-models.js';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * What each image cost (issue 31), from each adapter's loopback upstream speaking its real wire
 * format, with the shipped catalogs' published prices: OpenAI's `usage` tokens and Gemini's
 * `usageMetadata` × the route's token prices, Replicate's per-image price. The figure is on the
 * task record, the history item, the usage report and the spend metric, all equal.
 */

const METRICS_TOKEN = 'metrics-token-0123456789';
const catalog = (name: string) => fileURLToPath(new URL(`../../catalogs/${name}.json`, import.meta.url));
/** 20 characters: the fake Gemini counts a prompt token per 4 characters. */
const PROMPT = 'a lighthouse at dawn';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

/** Generates one image on `model` and returns its final record, history item, usage report and metrics. */
async function generateOne(t: TestApp, model: string, imageSize: string) {
  const { apiKey } = await t.createAccount();
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/v1/generate',
    headers: bearer(apiKey),
    payload: { prompt: PROMPT, model, imageSize },
  });
  assert.equal(response.statusCode, 200, response.body);
  const [taskId] = response.json().task_ids as string[];
  assert.ok(taskId);
  const { final } = await pollUntilFinal(t.app, apiKey, taskId);
  assert.equal(final.status, 'completed', final.error);
  const get = async (url: string, key = apiKey) =>
    (await t.app.inject({ method: 'GET', url, headers: bearer(key) })).json();
  const [history, usage] = await Promise.all([get('/api/v1/history'), get('/api/v1/user/usage')]);
  const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
  return { final, item: history.items[0], usage, metrics: metrics.body, apiKey };
}

function assertCostEverywhere(
  result: Awaited<ReturnType<typeof generateOne>>,
  expected: { amount_micros: number; source: string },
  metric: { model: string; provider: string },
) {
  assert.deepEqual((result.final as { cost?: unknown }).cost, { ...expected, currency: 'USD' });
  assert.deepEqual(result.item.cost, { amount_micros: expected.amount_micros, currency: 'USD' });
  assert.equal(result.usage.totals.cost_micros, expected.amount_micros);
  assert.equal(result.usage.days.at(-1).cost_micros, expected.amount_micros);
  assert.equal(result.usage.models[0].cost_micros, expected.amount_micros);
  const line = `atelier_spend_micros_total{model="${metric.model}",provider="${metric.provider}"} ${expected.amount_micros}`;
  assert.ok(result.metrics.includes(line), `metrics have ${line}`);
}

describe('cost of each image from its upstream', () => {
  test("Gemini: usageMetadata × the catalog's token prices (prompt, image output, thoughts)", async () => {
    const key = 'AIzaCostUpstream-0123456789abcdefghij';
    const gemini = await startFakeGemini({ apiKey: key });
    closers.push(() => gemini.close());
    const t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog('gemini'),
        ATELIER_GEMINI_API_KEY: key,
        ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
        ATELIER_METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    closers.push(() => t.close());
    // pro is gemini-3-pro-image: input $2, image output $120, thinking $12 per million tokens.
    const result = await generateOne(t, 'pro', '1K');
    const expected = 5 * 2 + GEMINI_OUT * 120 + GEMINI_THOUGHTS * 12;
    assertCostEverywhere(
      result,
      { amount_micros: expected, source: 'upstream_usage' },
      { model: 'gemini-3-pro-image', provider: 'gemini' },
    );
  });

  test("OpenAI: the answer's usage × the catalog's token prices", async () => {
    const key = 'sk-cost-upstream-test';
    const openai = await startFakeOpenAI({ apiKey: key });
    closers.push(() => openai.close());
    const t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: catalog('openai'),
        ATELIER_OPENAI_API_KEY: key,
        ATELIER_OPENAI_BASE_URL: openai.baseUrl,
        ATELIER_METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    closers.push(() => t.close());
    // The fake answers usage as OpenAI does: 50 text input tokens ($5 per million), image input
    // tokens per image sent ($8 per million), 4,160 output tokens ($30 per million).
    const result = await generateOne(t, 'base-image-2', '1K');
    assertCostEverywhere(
      result,
      { amount_micros: 50 * 5 + 4160 * 30, source: 'upstream_usage' },
      { model: 'gpt-image-2.6-flare', provider: 'openai' },
    );

    // An edit through the openai SDK: its reference is billed as image input tokens.
    const { apiKey } = await t.createAccount();
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
    const image = await toFile(await makePng(256, 256), 'in.png', { type: 'image/png' });
    const edited = await client.images.edit({
      model: 'base-image-2',
      image,
      prompt: PROMPT,
      size: '1024x1024',
    });
    assert.deepEqual(edited.usage?.input_tokens_details, { text_tokens: 50, image_tokens: OPENAI_IMAGE_IN });
    const history = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    const editCost = 50 * 5 + OPENAI_IMAGE_IN * 8 + 4160 * 30;
    assert.deepEqual(history.json().items[0].cost, { amount_micros: editCost, currency: 'USD' });

    // Expand (issue 45) on the shipped OpenAI catalog: an edit of the padded canvas with its mask, the
    // wording before the work's prompt, no seed (OpenAI takes none); priced like any edit.
    const expanded = await t.app.inject({
      method: 'POST',
      url: `/api/v1/generations/${result.final.task_id}/actions`,
      headers: bearer(result.apiKey),
      payload: { action: 'expand', factor: 1.25 },
    });
    assert.equal(expanded.statusCode, 200, expanded.body);
    const { final: grown } = await pollUntilFinal(t.app, result.apiKey, expanded.json().task_ids[0]);
    assert.equal(grown.status, 'completed', grown.error);
    const call = openai.calls.at(-1);
    assert.equal(call?.endpoint, 'edits');
    assert.ok(call?.mask, 'the mask is sent');
    assert.match(
      String(call?.params.prompt),
      /^Extend this picture into the empty border.*a lighthouse at dawn$/,
    );
    assert.equal(call?.params.seed, undefined);
    assert.deepEqual((grown as { cost?: { source: string } }).cost?.source, 'upstream_usage');
  });

  test("Replicate: the catalog's published per-image price for the size", async () => {
    const replicate = await startFakeReplicate({ token: REPLICATE_TOKEN, models: REPLICATE_MODELS });
    closers.push(() => replicate.close());
    const t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog('replicate'),
        ATELIER_REPLICATE_API_TOKEN: REPLICATE_TOKEN,
        ATELIER_REPLICATE_BASE_URL: replicate.baseUrl,
        ATELIER_UPLOAD_ALLOWED_HOSTS: new URL(replicate.baseUrl).host,
        ATELIER_METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    closers.push(() => t.close());
    // pro is google/nano-banana-pro: $0.15 per image at 1K and 2K, $0.30 at 4K.
    const result = await generateOne(t, 'pro', '4K');
    assertCostEverywhere(
      result,
      { amount_micros: 300_000, source: 'catalog_price' },
      { model: 'google/nano-banana-pro', provider: 'replicate' },
    );
  });
});
