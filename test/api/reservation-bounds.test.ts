import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { IMAGE_QUALITIES, type ImageQuality } from '../../src/base/domain/image-qualities.js';
import { IMAGE_SIZES } from '../../src/base/domain/image-sizes.js';
import { loadCatalog, maxImageCostOf, routesOf } from '../../src/capabilities/catalog/catalog.js';
import { gptImageOutputTokens as gptTokens } from '../../src/capabilities/catalog/gpt-image-tokens.js';
import { costOfImage } from '../../src/capabilities/catalog/prices.js';
import { ratioOf } from '../../src/capabilities/providers/openai-sizes.js';
import { checkGenerateRequest } from '../../src/use-cases/generations/generate-request.js';
import { type OpenAICall, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp } from '../support/test-server.js';
import { usageBounds } from '../support/usage-bounds.js';

/**
 * Issue 41: admission never reserves less than a task can be charged. For random requests (model,
 * size, aspect or a reference's own ratio, quality or none, count, references, prompt) and any
 * usage the upstream may report within its documented bounds (test/support/usage-bounds.ts), each
 * task's reservation is at least its cost, on every route the model may fall back to.
 */

const catalogPath = (name: string) => fileURLToPath(new URL(`../../catalogs/${name}.json`, import.meta.url));
const PROVIDERS = ['local', 'openai', 'gemini', 'replicate'];

const requestArb = fc.record({
  model: fc.constantFrom('base-image-2', 'pro', 'flash2', 'flash'),
  imageSize: fc.constantFrom(...IMAGE_SIZES),
  quality: fc.option(fc.constantFrom(...IMAGE_QUALITIES), { nil: undefined }),
  aspectIndex: fc.nat(),
  /** An edit's reference ratio (the request names no aspect): 1:3 … 3:1. */
  referenceRatio: fc.option(fc.double({ min: 1 / 3, max: 3, noNaN: true }), { nil: undefined }),
  references: fc.nat({ max: 16 }),
  promptChars: fc.integer({ min: 1, max: 8000 }),
  count: fc.integer({ min: 1, max: 4 }),
  /** The share of each bound the upstream reports, per image. */
  shares: fc.array(
    fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
    {
      minLength: 4,
      maxLength: 4,
    },
  ),
});

describe('reservations cover the most a task can be charged', () => {
  for (const name of ['openai', 'gemini']) {
    test(`${name} catalog: reservation ≥ cost for any documented usage (property)`, () => {
      const catalog = loadCatalog(catalogPath(name), PROVIDERS);
      fc.assert(
        fc.property(requestArb, (r) => {
          const model = catalog.get(r.model);
          assert.ok(model);
          const quality = model.qualities ? r.quality : undefined;
          const mode =
            r.references === 0
              ? 'text'
              : r.references === 1 || !model.modes.includes('fusion')
                ? 'edit'
                : 'fusion';
          const references =
            mode === 'text'
              ? 0
              : mode === 'edit'
                ? 1
                : Math.max(2, Math.min(r.references, model.maxReferences));
          const request = checkGenerateRequest(
            {
              prompt: 'x'.repeat(r.promptChars),
              model: r.model,
              mode,
              imageSize: model.sizes.includes(r.imageSize) ? r.imageSize : model.sizes[0],
              count: r.count,
              quality: quality ?? null,
              imageUrls: Array.from({ length: references }, (_, i) => `https://example.com/${i}.png`),
              ...(r.referenceRatio === undefined || mode === 'text'
                ? { aspect: model.aspects[r.aspectIndex % model.aspects.length] }
                : {}),
            },
            catalog,
          );
          const ratio = request.keepReferenceAspect ? (r.referenceRatio ?? 1) : ratioOf(request.aspect);
          const input = { promptChars: request.prompt.length, references };
          const reserved = maxImageCostOf(model, request.imageSize, input, request.quality);
          for (const route of routesOf(model)) {
            if (route.provider === 'openai' && Math.max(ratio, 1 / ratio) > 3) continue;
            const bounds = usageBounds(route, {
              ...input,
              imageSize: request.imageSize,
              ratio,
              quality: request.quality,
            });
            let charged = 0;
            for (const [a, b] of r.shares.slice(0, request.count)) {
              const text = Math.floor(bounds.text * a);
              const image = Math.floor(bounds.image * b);
              const usage = {
                input_tokens: text + image,
                input_tokens_details: { text_tokens: text, image_tokens: image },
                output_tokens: Math.floor(bounds.output * Math.max(a, b)),
                thinking_tokens: Math.floor(bounds.thinking * b),
              };
              // The worst case too: every bound reached.
              const worst = costOfImage(route.price, request.imageSize, {
                input_tokens: bounds.text + bounds.image,
                input_tokens_details: { text_tokens: bounds.text, image_tokens: bounds.image },
                output_tokens: bounds.output,
                thinking_tokens: bounds.thinking,
              });
              assert.ok(
                (worst?.micros ?? 0) <= reserved,
                `${route.upstreamModel}: worst ${worst?.micros} > ${reserved}`,
              );
              charged += costOfImage(route.price, request.imageSize, usage, request.quality)?.micros ?? 0;
              // An upstream that reports no usage is charged the per-image price (of the quality).
              const flat =
                costOfImage(route.price, request.imageSize, undefined, request.quality)?.micros ?? 0;
              assert.ok(flat <= reserved, `${route.upstreamModel}: per-image ${flat} > ${reserved}`);
            }
            assert.ok(
              charged <= reserved * request.count,
              `${route.upstreamModel}: ${charged} > ${reserved} × ${request.count}`,
            );
          }
        }),
        { numRuns: 2000, seed: 41 },
      );
    });
  }
});

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

/** A seeded generator (mulberry32): the run is the same every time. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('through the app: every task reserves at least what the upstream then bills (fake OpenAI, random usage within bounds)', async () => {
  const key = 'sk-reservation-bounds';
  const random = seeded(4141);
  const catalog = loadCatalog(catalogPath('openai'), PROVIDERS);
  /** Usage OpenAI may report for the call: within the documented bounds of its size and quality. */
  const usage = (call: OpenAICall) => {
    const [w = 1, h = 1] = String(call.params.size).split('x').map(Number);
    const route = catalog.models.flatMap(routesOf).find((r) => r.upstreamModel === call.model);
    assert.ok(route);
    const quality = IMAGE_QUALITIES.find((q) => q === call.params.quality);
    const bounds = usageBounds(route, {
      imageSize: '1K',
      ratio: w / h,
      quality: quality as ImageQuality | undefined,
      promptChars: String(call.params.prompt).length,
      references: call.images.length + (call.mask ? 1 : 0),
    });
    // The size sent fixes the output bound (usageBounds' imageSize only picks the route's sizing).
    const output = Math.max(...(quality ? [quality] : IMAGE_QUALITIES).map((q) => gptTokens(q, w, h)));
    const text = Math.round(bounds.text * random());
    const image = Math.round(bounds.image * random());
    const out = random() < 0.5 ? output : Math.round(output * random());
    return {
      input_tokens: text + image,
      input_tokens_details: { text_tokens: text, image_tokens: image },
      output_tokens: out,
      total_tokens: text + image + out,
    };
  };
  const openai = await startFakeOpenAI({ apiKey: key, usage });
  closers.push(() => openai.close());
  const t = await createTestApp({
    env: {
      ATELIER_CATALOG: catalogPath('openai'),
      ATELIER_OPENAI_API_KEY: key,
      ATELIER_OPENAI_BASE_URL: openai.baseUrl,
    },
  });
  closers.push(() => t.close());
  const { apiKey } = await t.createAccount();
  const upload = async (bytes: Buffer) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: bytes,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().url as string;
  };
  const references = [
    await upload(await makePng(300, 100)),
    await upload(await makePng(90, 160)),
    await upload(await makePng(64, 64)),
  ];
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const taskIds: string[] = [];
  for (let i = 0; i < 12; i++) {
    const model = pick(['base-image-2', 'pro', 'flash2', 'flash']);
    const entry = catalog.get(model);
    assert.ok(entry);
    const refs = model === 'pro' && random() < 0.4 ? 2 + Math.floor(random() * 2) : random() < 0.4 ? 1 : 0;
    const body = {
      prompt: `a lighthouse ${'at dawn '.repeat(1 + Math.floor(random() * 40))}`,
      model,
      imageSize: pick(entry.sizes),
      count: 1 + Math.floor(random() * 2),
      ...(random() < 0.7 ? { quality: pick(IMAGE_QUALITIES) } : {}),
      ...(refs === 0
        ? { aspect: pick(entry.aspects) }
        : { mode: refs === 1 ? 'edit' : 'fusion', imageUrls: references.slice(0, refs) }),
    };
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: body,
    });
    assert.equal(response.statusCode, 200, `${JSON.stringify(body)}: ${response.body}`);
    taskIds.push(...(response.json().task_ids as string[]));
  }
  for (const id of taskIds) {
    const { final } = await pollUntilFinal(t.app, apiKey, id);
    assert.equal(final.status, 'completed', final.error);
  }
  const rows = await t.core.resources.db
    .selectFrom('tasks')
    .select(['id', 'cost_micros', 'cost_source', 'cost_reserved_micros'])
    .where('id', 'in', taskIds)
    .execute();
  assert.equal(rows.length, taskIds.length);
  for (const row of rows) {
    assert.equal(row.cost_source, 'upstream_usage');
    assert.ok(
      Number(row.cost_micros) <= Number(row.cost_reserved_micros),
      `task ${row.id}: charged ${row.cost_micros} > reserved ${row.cost_reserved_micros}`,
    );
  }
  // Every quality asked reached OpenAI (the default, high, when none was named).
  assert.ok(openai.calls.every((call) => IMAGE_QUALITIES.includes(call.params.quality as ImageQuality)));
});
