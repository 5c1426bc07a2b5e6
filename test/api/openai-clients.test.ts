import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { DallEAPIWrapper } from '@langchain/openai';
import { generateImage } from 'ai';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { bearer, makePng } from '../support/api-helpers.js';
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

  test('ai generateImage with @ai-sdk/openai-compatible: edit (prompt { text, images }, multipart to /images/edits)', async () => {
    const provider = createOpenAICompatible({ name: 'atelier', baseURL, apiKey });
    const edited = await generateImage({
      model: provider.imageModel('pro'),
      prompt: { text: 'make it blue', images: [await makePng(640, 480)] },
    });
    // No size: the edit keeps the image's shape (4:3 at 1K).
    assert.equal(await sizeOf(edited.image.uint8Array), '1184x880');
  });

  test("openai: a size over the model's largest class is a 400 naming size (8192x8192 is not served at 4K)", async () => {
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const error = await client.images.generate({ model: 'pro', prompt: 'huge', size: '8192x8192' }).then(
      () => assert.fail('should be refused'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.param, 'size');
    assert.match(error.message, /larger than its largest size class \(4K\)/);
  });

  test('openai: background transparent is refused naming background (generate and edit); auto and opaque are accepted', async () => {
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => assert.fail('should be refused'),
        (thrown: unknown) => {
          assert.ok(thrown instanceof OpenAI.BadRequestError, String(thrown));
          assert.equal(thrown.param, 'background');
        },
      );
    await refusal(
      client.images.generate({ model: 'gpt-image-1', prompt: 'logo', background: 'transparent' }),
    );
    const image = await toFile(await makePng(), 'a.png', { type: 'image/png' });
    await refusal(
      client.images.edit({ model: 'gpt-image-1', image, prompt: 'cut out', background: 'transparent' }),
    );
    for (const background of ['auto', 'opaque'] as const) {
      const response = await client.images.generate({ model: 'gpt-image-1', prompt: 'logo', background });
      assert.equal(response.data?.length, 1, background);
    }
  });

  test("openai: models.retrieve answers a model, an alias (alias_of), or OpenAI's 404", async () => {
    const client = new OpenAI({ baseURL, apiKey });
    const pro = await client.models.retrieve('pro');
    assert.equal(pro.id, 'pro');
    assert.equal((pro as { alias_of?: string }).alias_of, undefined);
    const alias = await client.models.retrieve('gpt-image-1');
    assert.deepEqual(
      [alias.id, alias.object, (alias as { alias_of?: string }).alias_of],
      ['gpt-image-1', 'model', 'pro'],
    );
    const error = await client.models.retrieve('dall-e-4').then(
      () => assert.fail('should be a 404'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof OpenAI.NotFoundError, String(error));
    assert.deepEqual(
      [error.code, error.param, error.type],
      ['model_not_found', 'model', 'invalid_request_error'],
    );
  });

  test('openai: models.list lists the models, then each alias with alias_of', async () => {
    const client = new OpenAI({ baseURL, apiKey });
    const ids = new Map<string, string | undefined>();
    for await (const model of client.models.list())
      ids.set(model.id, (model as { alias_of?: string }).alias_of);
    for (const id of ['base-image-2', 'pro', 'flash2', 'flash']) assert.equal(ids.get(id), undefined, id);
    assert.equal(ids.get('gpt-image-1'), 'pro');
    assert.equal(ids.get('gpt-image-1-mini'), 'flash2');
    assert.equal(ids.get('dall-e-3'), 'base-image-2');
    assert.equal(ids.get('dall-e-2'), 'flash');
    assert.equal(ids.get('gemini-3-pro-image'), 'pro');
    assert.equal(ids.get('gemini-3.1-flash-image'), 'base-image-2');
  });

  test('ai generateImage with @ai-sdk/openai and its default id gpt-image-1: history records pro', async () => {
    const openai = createOpenAI({ baseURL, apiKey });
    const result = await generateImage({ model: openai.image('gpt-image-1'), prompt: 'a heron' });
    assert.equal(await sizeOf(result.image.uint8Array), '1024x1024');
    assert.equal((await lastHistoryItem()).model, 'pro');
  });

  test('@langchain/openai DallEAPIWrapper with its defaults (dall-e-3, url, style vivid, quality standard)', async () => {
    const tool = new DallEAPIWrapper({ apiKey, baseUrl: baseURL });
    const url = await tool.invoke('a red bicycle');
    assert.match(String(url), new RegExp(`^${t.baseUrl}/files/results/`));
    assert.equal((await fetch(String(url))).status, 200);
    assert.equal((await lastHistoryItem()).model, 'base-image-2');
  });

  test('/api/v1/generate takes an alias too; the generation records the model it names', async () => {
    const response = await fetch(`${t.baseUrl}/api/v1/generate`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'alias', model: 'dall-e-2', imageSize: '1K' }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal((await lastHistoryItem()).model, 'flash');
  });

  test('Azure-style api-key header on /v1/images/* and /v1/models (api-version ignored); disagreeing keys are a 401', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${baseURL}/images/generations?api-version=2025-04-01-preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-image-1', prompt: 'azure', size: '1024x1024' }),
      });
    const ok = await post({ 'api-key': apiKey });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.ok(((await ok.json()) as { data: Array<{ b64_json?: string }> }).data[0]?.b64_json);
    const models = await fetch(`${baseURL}/models?api-version=2024-10-21`, {
      headers: { 'api-key': apiKey },
    });
    assert.equal(models.status, 200);
    // The same key in both headers is one credential.
    assert.equal((await post({ 'api-key': apiKey, ...bearer(apiKey) })).status, 200);

    const { apiKey: other } = await t.createAccount();
    const disagree = await post({ 'api-key': other, ...bearer(apiKey) });
    assert.equal(disagree.status, 401);
    const body = (await disagree.json()) as { error: { code: string; type: string; param: unknown } };
    assert.deepEqual(
      [body.error.code, body.error.type, body.error.param],
      ['unauthorized', 'invalid_request_error', null],
    );
    const wrong = await post({ 'api-key': 'atl_not_a_key' });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    // Only OpenAI's surface reads it: /api/v1 keeps Authorization (spec §5).
    const v1 = await fetch(`${t.baseUrl}/api/v1/user/status`, { headers: { 'api-key': apiKey } });
    assert.equal(v1.status, 401);
  });

  test("Open WebUI's OpenAI image engine request shape: Bearer, ?api-version, no response_format for gpt-image; it reads url first, else b64_json", async () => {
    // Follows open-webui backend/open_webui/routers/images.py, image_generations(): POST
    // {IMAGES_OPENAI_API_BASE_URL}/images/generations (+ ?api-version= when set) with
    // { model, prompt, n, size } and response_format "b64_json" unless the model matches
    // IMAGE_URL_RESPONSE_MODELS_REGEX_PATTERN (the gpt-image models); for each data[] it downloads
    // `url` (sending the same Authorization header) when present, else decodes `b64_json`.
    const headers = { ...bearer(apiKey), 'content-type': 'application/json' };
    const response = await fetch(`${baseURL}/images/generations?api-version=2025-04-01-preview`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'owui', n: 1, size: '1024x1024' }),
    });
    assert.equal(response.status, 200);
    const { data } = (await response.json()) as { data: Array<{ url?: string; b64_json?: string }> };
    const image = data[0];
    const download = await fetch(image?.url ?? '', { headers });
    assert.equal(download.status, 200);
    assert.match(download.headers.get('content-type') ?? '', /^image\//);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(image?.b64_json ?? '', 'base64')));
  });

  test("LibreChat's image_gen_oai / image_edit_oai in Azure mode: gpt-image-1, api-key + api-version, reads data[0].b64_json", async () => {
    // Follows LibreChat api/app/clients/tools/structured/OpenAIImageTools.js (createOpenAIImageTools):
    // generation through the openai client with baseURL, defaultQuery { "api-version" } and
    // defaultHeaders { "api-key" } (apiKey the same key), body { model, prompt, n, background: "auto",
    // output_format: "png", quality: "auto", size: "auto" }; the edit is a multipart POST
    // {baseURL}/images/edits?api-version=… with model, prompt, quality, size and image[] parts and
    // the api-key header. Both read only data[0].b64_json ("No image data returned" otherwise).
    const openai = new OpenAI({
      apiKey,
      baseURL,
      defaultQuery: { 'api-version': '2025-04-01-preview' },
      defaultHeaders: { 'api-key': apiKey, 'Content-Type': 'application/json' },
    });
    const generated = await openai.images.generate({
      model: 'gpt-image-1',
      prompt: 'a lighthouse',
      n: 1,
      background: 'auto',
      output_format: 'png',
      quality: 'auto',
      size: 'auto',
    });
    assert.equal(await sizeOf(Buffer.from(generated.data?.[0]?.b64_json ?? '', 'base64')), '1024x1024');

    const form = new FormData();
    form.append('model', 'gpt-image-1');
    form.append('prompt', 'make it night');
    form.append('quality', 'auto');
    form.append('size', 'auto');
    form.append(
      'image[]',
      new Blob([new Uint8Array(await makePng(640, 480))], { type: 'image/png' }),
      'a.png',
    );
    const edit = await fetch(`${baseURL}/images/edits?api-version=2025-04-01-preview`, {
      method: 'POST',
      headers: { 'api-key': apiKey },
      body: form,
    });
    assert.equal(edit.status, 200, await edit.clone().text());
    const { data } = (await edit.json()) as { data: Array<{ b64_json?: string }> };
    assert.equal(await sizeOf(Buffer.from(data[0]?.b64_json ?? '', 'base64')), '1184x880');
  });

  async function lastHistoryItem(): Promise<{ model: string }> {
    const response = await fetch(`${t.baseUrl}/api/v1/history?limit=1`, { headers: bearer(apiKey) });
    const { items } = (await response.json()) as { items: Array<{ model: string }> };
    assert.ok(items[0], 'a history item');
    return items[0];
  }
});
