// Vary and expand on the hosted image models: ordinary edits (expand a masked one), whatever the
// request's `action` says; seeds where the upstream takes one (Gemini), never where it does not (OpenAI).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  type FakeGemini,
  GEMINI_IMAGE_MODELS,
  startFakeGemini,
} from '../../../test/fakes/providers/fake-gemini.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { parseCatalog } from '../catalog/index.js';
import { createGeminiProvider } from './gemini-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ReferenceImage, SubmitOutcome } from './provider.js';

const GEMINI_KEY = 'AIzaTestKey-0123456789abcdefghijklmnop';
const OPENAI_KEY = 'sk-test-0123456789abcdefghijklmnop';

function assertDone(outcome: SubmitOutcome): asserts outcome is Extract<SubmitOutcome, { kind: 'done' }> {
  assert.equal(outcome.kind, 'done', `expected done, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

/** An expand's mask: the canvas with its border transparent (alpha 0) and the picked image's place opaque. */
async function borderMask(width: number, height: number, border: number): Promise<ReferenceImage> {
  const pixels = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inside = x >= border && x < width - border && y >= border && y < height - border;
      if (!inside) pixels[(y * width + x) * 4 + 3] = 0;
    }
  const bytes = await sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
  return { bytes, contentType: 'image/png', width, height };
}

describe('gemini: seeds and actions', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini({ apiKey: GEMINI_KEY, models: GEMINI_IMAGE_MODELS });
  });
  after(() => fake.close());
  const provider = () => createGeminiProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });

  test("the request's seed goes as generationConfig.seed; no seed, no field", async () => {
    const base = { upstreamModel: 'gemini-3.1-flash-image', apiKey: GEMINI_KEY };
    assertDone(await provider().submit(providerRequest({ ...base, seed: 2_147_483_647 })));
    assert.equal(fake.calls.at(-1)?.body.generationConfig.seed, 2_147_483_647);
    assertDone(await provider().submit(providerRequest(base)));
    assert.equal('seed' in (fake.calls.at(-1)?.body.generationConfig ?? {}), false);
  });

  test('vary and expand are edits of the picked image (or its canvas) with the prompt, and the seed', async () => {
    const picked = await referenceImage(64, 64);
    for (const action of [
      { name: 'vary', strength: 'subtle' },
      { name: 'expand', factor: 1.5 },
    ] as const) {
      const outcome = await provider().submit(
        providerRequest({
          upstreamModel: 'gemini-3-pro-image',
          apiKey: GEMINI_KEY,
          mode: 'edit',
          prompt: `${action.name}: a lighthouse at dawn`,
          references: [picked],
          action,
          seed: 11,
        }),
      );
      assertDone(outcome);
      const body = fake.calls.at(-1)?.body;
      assert.equal(body?.generationConfig.seed, 11);
      const parts = body?.contents.at(-1)?.parts ?? [];
      assert.deepEqual(parts[0], { text: `${action.name}: a lighthouse at dawn` });
      assert.equal(parts.length, 2, 'the prompt and the one picked image');
    }
  });
});

test('the shipped catalogs: vary and expand on Gemini (seeds) and OpenAI (no seeds, expand masked)', () => {
  const read = (name: string) =>
    parseCatalog(
      JSON.parse(readFileSync(new URL(`../../../catalogs/${name}.json`, import.meta.url), 'utf8')),
      [name],
    );
  const routes = (name: string) =>
    read(name)
      .models.filter((m) => m.action)
      .map((m) => [m.id, m.action, m.modes.join(), m.seeds, m.masks]);
  assert.deepEqual(routes('gemini'), [
    ['vary', 'vary', 'edit', true, false],
    ['expand', 'expand', 'edit', true, false],
  ]);
  assert.ok(read('gemini').models.every((m) => m.seeds));
  assert.deepEqual(routes('openai'), [
    ['vary', 'vary', 'edit', false, false],
    ['expand', 'expand', 'edit', false, true],
  ]);
  assert.ok(
    read('openai').models.every((m) => !m.seeds),
    'the Images API takes no seed',
  );
});

describe('openai: actions arrive as edits and never carry a seed', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
  });
  after(() => fake.close());
  const provider = () => createOpenAIProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });

  test('an expand is a masked edit of the canvas: image[], mask, prompt; no seed though the request holds one', async () => {
    const canvas = await referenceImage(96, 96);
    const mask = await borderMask(96, 96, 16);
    const outcome = await provider().submit(
      providerRequest({
        upstreamModel: 'gpt-image-1.5',
        apiKey: OPENAI_KEY,
        mode: 'edit',
        references: [canvas],
        mask,
        action: { name: 'expand', factor: 1.5 },
        seed: 1234,
      }),
    );
    assertDone(outcome);
    const call = fake.calls.at(-1);
    assert.equal(call?.endpoint, 'edits');
    assert.deepEqual(call?.mask, mask.bytes);
    assert.equal(call?.images.length, 1);
    assert.equal('seed' in (call?.params ?? {}), false);
    assert.doesNotMatch(call?.raw.body.toString('latin1') ?? '', /name="seed"/);
  });

  test('a vary is a plain edit; a generation with a seed sends none either', async () => {
    const base = { upstreamModel: 'gpt-image-1.5', apiKey: OPENAI_KEY, seed: 42 };
    const vary = { name: 'vary', strength: 'strong' } as const;
    const picked = await referenceImage(64, 64);
    assertDone(
      await provider().submit(providerRequest({ ...base, mode: 'edit', references: [picked], action: vary })),
    );
    assert.equal(fake.calls.at(-1)?.endpoint, 'edits');
    assert.equal('seed' in (fake.calls.at(-1)?.params ?? {}), false);
    assertDone(await provider().submit(providerRequest(base)));
    assert.equal(fake.calls.at(-1)?.endpoint, 'generations');
    assert.equal('seed' in (fake.calls.at(-1)?.params ?? {}), false);
  });
});
