import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateImage } from 'ai';
import OpenAI from 'openai';
import sharp from 'sharp';
import { makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * The OpenAI-compatible routes driven by the client libraries apps use, with their defaults: each
 * sends what it sends to OpenAI and reads what it reads from OpenAI's answer (issue 29).
 */

const sizeOf = async (bytes: Uint8Array) => {
  const meta = await sharp(Buffer.from(bytes)).metadata();
  return `${meta.width}x${meta.height}`;
};

describe('OpenAI client libraries, unchanged, against Atelier', () => {
  let t: TestApp;
  let apiKey: string;
  let baseURL: string;

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey } = await t.createAccount());
    baseURL = `${t.baseUrl}/v1`;
  });
  after(() => t?.close());

  test('openai: no response_format answers b64_json (and url, the same bytes), echoing what was produced', async () => {
    const client = new OpenAI({ baseURL, apiKey });
    const response = await client.images.generate({
      model: 'pro',
      prompt: 'a lighthouse',
      size: '1536x1024',
    });
    const image = response.data?.[0];
    const bytes = Buffer.from(image?.b64_json ?? '', 'base64');
    assert.equal(await sizeOf(bytes), '1248x832');
    assert.match(image?.url ?? '', new RegExp(`^${t.baseUrl}/files/results/`));
    const file = Buffer.from(await (await fetch(image?.url ?? '')).arrayBuffer());
    assert.ok(file.equals(bytes), 'url serves the b64_json bytes');
    assert.equal(response.size, '1248x832');
    assert.equal(response.output_format, 'png');
    assert.equal(response.usage, undefined, 'no usage: the local renderer reports none');
  });

  test('openai: response_format url answers url only, b64_json answers b64_json only', async () => {
    const client = new OpenAI({ baseURL, apiKey });
    const url = await client.images.generate({ model: 'pro', prompt: 'x', response_format: 'url' });
    assert.deepEqual(Object.keys(url.data?.[0] ?? {}), ['url']);
    const b64 = await client.images.generate({ model: 'pro', prompt: 'x', response_format: 'b64_json' });
    assert.deepEqual(Object.keys(b64.data?.[0] ?? {}), ['b64_json']);
  });

  test('ai generateImage with @ai-sdk/openai: generate and edit (prompt { text, images })', async () => {
    const openai = createOpenAI({ baseURL, apiKey });
    const generated = await generateImage({ model: openai.image('pro'), prompt: 'a fox', size: '1024x1024' });
    assert.equal(await sizeOf(generated.image.uint8Array), '1024x1024');
    const edited = await generateImage({
      model: openai.image('pro'),
      prompt: { text: 'make it blue', images: [await makePng(640, 480)] },
    });
    // No size: the edit keeps the image's shape (4:3 at 1K).
    assert.equal(await sizeOf(edited.image.uint8Array), '1184x880');
  });

  test('ai generateImage with @ai-sdk/openai-compatible: generate', async () => {
    const provider = createOpenAICompatible({ name: 'atelier', baseURL, apiKey });
    const result = await generateImage({ model: provider.imageModel('pro'), prompt: 'a fox', n: 2 });
    assert.equal(result.images.length, 2);
    for (const image of result.images) assert.equal(await sizeOf(image.uint8Array), '1024x1024');
  });
});
