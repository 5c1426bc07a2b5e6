import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateImage } from 'ai';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Masks (issue 29): `mask` on /v1/images/edits (openai and the AI SDK, unchanged) and `maskUrl` on
 * /api/v1/generate, honoured by models whose catalog entry lists masks (the local renderer changes
 * only the transparent area), refused naming the field by the others and for a mask of the wrong size.
 */

const WIDTH = 96;
const HEIGHT = 64;
/** The mask's transparent hole (where to edit): x 20-59, y 10-39. */
const inHole = (x: number, y: number) => x >= 20 && x < 60 && y >= 10 && y < 40;

/** An image with detail in every pixel, so a kept pixel is told from a re-rendered one. */
const reference = () => {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37) % 251;
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .png()
    .toBuffer();
};

const maskPng = (width = WIDTH, height = HEIGHT) => {
  const pixels = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) if (inHole(x, y)) pixels[(y * width + x) * 4 + 3] = 0;
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
};

/** Asserts `result` is `original` outside the hole (byte for byte) and differs inside it. */
async function assertMaskedEdit(result: Uint8Array, original: Buffer) {
  const got = await sharp(Buffer.from(result)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const want = await sharp(original).raw().toBuffer();
  assert.deepEqual([got.info.width, got.info.height], [WIDTH, HEIGHT]);
  let changed = 0;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const at = (y * WIDTH + x) * 3;
      const same = got.data.subarray(at, at + 3).equals(want.subarray(at, at + 3));
      if (!inHole(x, y)) assert.ok(same, `pixel ${x},${y} outside the mask's hole changed`);
      else if (!same) changed += 1;
    }
  }
  assert.ok(changed > 40 * 30 * 0.9, `the hole was edited (${changed} of 1200 pixels)`);
}

async function rejection(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, `an APIError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call should have failed');
}

describe('masks on the OpenAI-compatible edits and on POST /api/v1/generate', () => {
  let t: TestApp;
  let apiKey: string;
  let client: OpenAI;
  let catalogDir: string;

  before(async () => {
    // The built-in catalog, but flash takes no mask.
    catalogDir = await mkdtemp(join(tmpdir(), 'atelier-mask-catalog-'));
    const path = join(catalogDir, 'catalog.json');
    const models = DEFAULT_CATALOG.models.map((m) => (m.id === 'flash' ? { ...m, masks: false } : m));
    await writeFile(path, JSON.stringify({ models }));
    t = await createTestApp({ listen: true, env: { ATELIER_CATALOG: path } });
    ({ apiKey } = await t.createAccount());
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(async () => {
    await t?.close();
    await rm(catalogDir, { recursive: true, force: true });
  });

  test('GET /v1/models and /api/v1/models say which models take masks', async () => {
    for (const url of ['/v1/models', '/api/v1/models']) {
      const list = (await t.app.inject({ method: 'GET', url, headers: bearer(apiKey) })).json();
      const masks = (id: string) => list.data.find((m: { id: string }) => m.id === id)?.masks;
      assert.equal(masks('pro'), true, url);
      assert.equal(masks('flash'), false, url);
    }
  });

  test('openai images.edit({ image, mask }): only the transparent area changes', async () => {
    const original = await reference();
    const response = await client.images.edit({
      model: 'pro',
      prompt: 'a window in the wall',
      image: await toFile(original, 'wall.png', { type: 'image/png' }),
      mask: await toFile(await maskPng(), 'mask.png', { type: 'image/png' }),
    });
    await assertMaskedEdit(Buffer.from(response.data?.[0]?.b64_json ?? '', 'base64'), original);
  });

  test('ai generateImage with @ai-sdk/openai, prompt { text, images, mask }: only the transparent area changes', async () => {
    const original = await reference();
    const openai = createOpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey });
    const result = await generateImage({
      model: openai.image('gpt-image-1'),
      prompt: { text: 'a window in the wall', images: [original], mask: await maskPng() },
    });
    await assertMaskedEdit(result.image.uint8Array, original);
  });

  test('ai generateImage with @ai-sdk/openai-compatible, prompt { text, images, mask }: only the transparent area changes', async () => {
    const original = await reference();
    const provider = createOpenAICompatible({ name: 'atelier', baseURL: `${t.baseUrl}/v1`, apiKey });
    const result = await generateImage({
      model: provider.imageModel('pro'),
      prompt: { text: 'a window in the wall', images: [original], mask: await maskPng() },
    });
    await assertMaskedEdit(result.image.uint8Array, original);
  });

  test('openai: a mask of another size, or on a model without masks, is a 400 naming mask', async () => {
    const image = await toFile(await reference(), 'wall.png', { type: 'image/png' });
    const edit = async (model: string, mask: Buffer) =>
      rejection(client.images.edit({ model, prompt: 'x', image, mask: await toFile(mask, 'mask.png') }));
    const wrongSize = await edit('pro', await maskPng(WIDTH, HEIGHT + 2));
    assert.equal(wrongSize.status, 400);
    assert.equal(wrongSize.param, 'mask');
    assert.match(wrongSize.message, /size of the image \(96x64\); it is 96x66/);
    const noMasks = await edit('flash', await maskPng());
    assert.equal(noMasks.status, 400);
    assert.equal(noMasks.param, 'mask');
    assert.match(noMasks.message, /flash does not take a mask/);
  });

  test('POST /api/v1/generate with maskUrl: an edit that keeps the unmasked pixels', async () => {
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
    const original = await reference();
    const [imageUrl, maskUrl] = [await upload(original), await upload(await maskPng())];
    const generate = (body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(apiKey), payload: body });
    const edit = { prompt: 'a window', mode: 'edit', imageUrls: [imageUrl], maskUrl, model: 'pro' };
    const response = await generate(edit);
    assert.equal(response.statusCode, 200, response.body);
    const { final } = await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
    assert.equal(final.status, 'completed', final.error);
    const file = await fetch(final.imageUrl ?? '');
    await assertMaskedEdit(new Uint8Array(await file.arrayBuffer()), original);

    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...edit, model: 'flash' }, /^maskUrl: model flash does not take a mask/],
      [{ prompt: 'x', maskUrl }, /^maskUrl is only taken by mode edit/],
      [{ ...edit, maskUrl: await upload(await maskPng(48, 32)) }, /^maskUrl: the mask must be the size/],
      [{ ...edit, maskUrl: imageUrl }, /^maskUrl: the mask must have an alpha channel/],
    ];
    for (const [body, message] of refusals) {
      assert.match(assertError(await generate(body), 400, 'invalid_request'), message);
    }
  });
});
