import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatUsd, parseUsd } from '../../base/domain/money.js';
import { loadCatalog, maxImageCostOf, parseCatalog } from './catalog.js';
import { costOfImage, maxImageCost, type RoutePrice, routePriceSchema } from './prices.js';

const gptImage: RoutePrice = routePriceSchema.parse({
  perImage: { '1K': 211000 },
  perMillionTokens: { textInput: 5_000_000, imageInput: 8_000_000, output: 30_000_000 },
  maxTokensPerReference: 6240,
});

test("a token-billed route costs the upstream's tokens × its prices, text and image input apart", () => {
  // OpenAI's usage: 50 text + 1,000 image input tokens, 4,160 output tokens.
  const cost = costOfImage(gptImage, '1K', {
    input_tokens: 1050,
    output_tokens: 4160,
    input_tokens_details: { text_tokens: 50, image_tokens: 1000 },
  });
  // 50 × $5/1M = 250; 1,000 × $8/1M = 8,000; 4,160 × $30/1M = 124,800.
  assert.deepEqual(cost, { micros: 250 + 8000 + 124_800, source: 'upstream_usage' });
});

test('without a split every input token is billed as text; thinking at its own price; rounding up', () => {
  const gemini = routePriceSchema.parse({
    perImage: { '1K': 67000 },
    perMillionTokens: { textInput: 250_000, output: 60_000_000, thinking: 1_500_000 },
  });
  const cost = costOfImage(gemini, '1K', { input_tokens: 3, output_tokens: 1120, thinking_tokens: 10 });
  // 3 × 0.25 = 0.75 → 1; 1,120 × 60 = 67,200; 10 × 1.5 = 15.
  assert.deepEqual(cost, { micros: 1 + 67_200 + 15, source: 'upstream_usage' });
});

test('no usage (or a per-image route) → the per-image price of the size; no price → unknown', () => {
  assert.deepEqual(costOfImage(gptImage, '1K', undefined), { micros: 211000, source: 'catalog_price' });
  const replicate = routePriceSchema.parse({ perImage: { '1K': 150000, '4K': 300000 } });
  assert.deepEqual(costOfImage(replicate, '4K', { input_tokens: 1, output_tokens: 1 }), {
    micros: 300000,
    source: 'catalog_price',
  });
  assert.equal(costOfImage(replicate, '2K', undefined), undefined);
  assert.equal(costOfImage(undefined, '1K', undefined), undefined);
});

test('the reservation: the per-image maximum plus the whole input at most', () => {
  // 10 prompt characters × $5/1M = 50; 2 references × 6,240 tokens × $8/1M = 99,840.
  assert.equal(maxImageCost(gptImage, '1K', { promptChars: 10, references: 2 }), 211000 + 50 + 99_840);
  assert.equal(maxImageCost(undefined, '1K', { promptChars: 10, references: 0 }), 0);
});

test("a model's reservation is its most expensive route's (a task may fall back to any)", () => {
  const catalog = parseCatalog(
    {
      models: [
        {
          id: 'base-image-2',
          provider: 'local',
          upstreamModel: 'a',
          modes: ['text'],
          price: { perImage: { '1K': 10, '2K': 20, '4K': 40 } },
          fallbacks: [{ provider: 'local', upstreamModel: 'b', price: { perImage: { '1K': 30 } } }],
        },
      ],
    },
    ['local'],
  );
  const model = catalog.get('base-image-2');
  assert.ok(model);
  assert.equal(maxImageCostOf(model, '1K', { promptChars: 5, references: 0 }), 30);
  assert.equal(maxImageCostOf(model, '4K', { promptChars: 5, references: 0 }), 40);
});

test('a price needs a per-image or a per-token figure; figures are whole micro-dollars', () => {
  assert.throws(() =>
    parseCatalog(
      { models: [{ id: 'base-image-2', provider: 'local', upstreamModel: 'a', modes: ['text'], price: {} }] },
      ['local'],
    ),
  );
  assert.throws(() => routePriceSchema.parse({ perImage: { '1K': 0.5 } }));
});

test('the built-in catalog prices the local renderer at nothing; every shipped catalog prices every size', () => {
  for (const model of loadCatalog(undefined, ['local']).models)
    assert.deepEqual(model.price?.perImage, { '1K': 0, '2K': 0, '4K': 0 });
  for (const file of ['gemini', 'openai', 'replicate', 'fal']) {
    const path = new URL(`../../../catalogs/${file}.json`, import.meta.url);
    const catalog = parseCatalog(JSON.parse(readFileSync(path, 'utf8')), [file], file);
    for (const model of catalog.models) {
      const price = model.price;
      assert.ok(
        price?.asOf && price.source && price.published,
        `${file} ${model.id} is a dated published price`,
      );
      for (const size of model.sizes)
        assert.ok((price.maxPerImage ?? price.perImage)?.[size], `${file} ${model.id} ${size} has a price`);
    }
  }
});

test('dollars: formatted for people, parsed from the CLI', () => {
  assert.equal(formatUsd(67000), '$0.067');
  assert.equal(formatUsd(12_500_000), '$12.50');
  assert.equal(formatUsd(0), '$0.00');
  assert.equal(parseUsd('12.5'), 12_500_000);
  assert.equal(parseUsd('$0.000001'), 1);
  assert.equal(parseUsd('3'), 3_000_000);
  assert.equal(parseUsd('1.2345678'), undefined);
  assert.equal(parseUsd('-1'), undefined);
  assert.equal(parseUsd('abc'), undefined);
});
