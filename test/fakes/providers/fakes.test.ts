/**
 * The fakes must refuse what the real upstreams refuse, or the adapter tests prove nothing:
 * each wrong field below is one an adapter could plausibly send.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createGeminiProvider } from '../../../src/capabilities/providers/gemini-provider.js';
import { startFakeFal } from './fake-fal.js';
import { startFakeGemini } from './fake-gemini.js';
import { noisePng } from './fake-http.js';
import { startFakeOpenAI } from './fake-openai.js';
import { startFakeReplicate } from './fake-replicate.js';
import { providerRequest } from './provider-request.js';
import { MODELS } from './replicate-test-models.js';

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('fake upstreams validate requests', () => {
  test('gemini: unknown fields, imageSize on a 2.5 model, a key in the URL', async () => {
    const fake = await startFakeGemini({
      apiKey: 'k',
      models: ['gemini-3-pro-image', 'gemini-2.5-flash-image'],
    });
    try {
      const ok = {
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { responseModalities: ['IMAGE'] },
      };
      const url = (model: string) => `${fake.baseUrl}/v1beta/models/${model}:generateContent`;
      assert.equal((await post(url('gemini-3-pro-image'), { 'x-goog-api-key': 'k' }, ok)).status, 200);
      const wrong = [
        { ...ok, generationConfig: { ...ok.generationConfig, imageConfig: { aspect_ratio: '1:1' } } },
        { ...ok, generationConfig: { ...ok.generationConfig, imageConfig: { imageSize: '8K' } } },
        { ...ok, generationConfig: { responseModalities: ['TEXT'] } },
        { ...ok, safety: true },
        {
          contents: [{ parts: [{ inlineData: { mimeType: 'image/gif', data: 'AAAA' } }] }],
          generationConfig: ok.generationConfig,
        },
      ];
      for (const body of wrong) {
        assert.equal(
          (await post(url('gemini-3-pro-image'), { 'x-goog-api-key': 'k' }, body)).status,
          400,
          JSON.stringify(body),
        );
      }
      const sized = { ...ok, generationConfig: { ...ok.generationConfig, imageConfig: { imageSize: '1K' } } };
      assert.equal((await post(url('gemini-2.5-flash-image'), { 'x-goog-api-key': 'k' }, sized)).status, 400);
      assert.equal(
        (await post(`${url('gemini-2.5-flash-image')}?key=k`, { 'x-goog-api-key': 'k' }, ok)).status,
        400,
      );
    } finally {
      await fake.close();
    }
  });

  test('openai: response_format on a GPT image model, an unknown parameter, a size it lacks, no Bearer', async () => {
    const fake = await startFakeOpenAI({ apiKey: 'sk-k' });
    try {
      const url = `${fake.baseUrl}/v1/images/generations`;
      const auth = { authorization: 'Bearer sk-k' };
      const ok = { model: 'gpt-image-1.5', prompt: 'x', n: 1, size: '1024x1024' };
      assert.equal((await post(url, auth, ok)).status, 200);
      for (const body of [
        { ...ok, response_format: 'b64_json' },
        { ...ok, aspect_ratio: '1:1' },
        { ...ok, size: '1792x1024' },
      ]) {
        assert.equal((await post(url, auth, body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await post(url, {}, ok)).status, 401);
      const form = new FormData();
      form.append('model', 'gpt-image-1.5');
      form.append('prompt', 'x');
      form.append('images', new Blob(['x'], { type: 'image/png' }), 'a.png');
      const edits = await fetch(`${fake.baseUrl}/v1/images/edits`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      assert.equal(edits.status, 400);
    } finally {
      await fake.close();
    }
  });

  test('gemini: every documented aspect and size is accepted; an unknown or shut-down model is NOT_FOUND', async () => {
    const fake = await startFakeGemini({ apiKey: 'k' });
    try {
      const url = (model: string) => `${fake.baseUrl}/v1beta/models/${model}:generateContent`;
      const body = (imageConfig: Record<string, string>) => ({
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { responseModalities: ['IMAGE'], imageConfig },
      });
      for (const aspectRatio of [
        '1:1',
        '2:3',
        '3:2',
        '3:4',
        '4:3',
        '4:5',
        '5:4',
        '9:16',
        '16:9',
        '21:9',
        '1:4',
        '4:1',
        '1:8',
        '8:1',
      ])
        assert.equal(
          (await post(url('gemini-3.1-flash-image'), { 'x-goog-api-key': 'k' }, body({ aspectRatio })))
            .status,
          200,
          aspectRatio,
        );
      for (const imageSize of ['512', '1K', '2K', '4K'])
        assert.equal(
          (await post(url('gemini-3.1-flash-image'), { 'x-goog-api-key': 'k' }, body({ imageSize }))).status,
          200,
          imageSize,
        );
      for (const model of ['gemini-3-pro-image-preview', 'gemini-2.5-flash-image', 'nope']) {
        const answer = await post(url(model), { 'x-goog-api-key': 'k' }, body({}));
        assert.equal(answer.status, 404, model);
        assert.equal(((await answer.json()) as { error: { status: string } }).error.status, 'NOT_FOUND');
      }
    } finally {
      await fake.close();
    }
  });

  test('openai: documented optional fields and custom sizes accepted; a shut-down model is model_not_found', async () => {
    const fake = await startFakeOpenAI({ apiKey: 'sk-k' });
    try {
      const url = `${fake.baseUrl}/v1/images/generations`;
      const auth = { authorization: 'Bearer sk-k' };
      const ok = {
        model: 'gpt-image-2.5-sunburst',
        prompt: 'x',
        n: 1,
        size: '3840x2160',
        quality: 'max',
        output_format: 'webp',
        output_compression: 80,
        background: 'opaque',
        moderation: 'low',
        safety_identifier: 'user-hash',
      };
      assert.equal((await post(url, auth, ok)).status, 200);
      for (const size of ['3856x2160', '1000x1000', '3840x1024', '512x512'])
        assert.equal((await post(url, auth, { ...ok, size })).status, 400, size);
      assert.equal((await post(url, auth, { ...ok, model: 'gpt-image-1.5', size: '2048x2048' })).status, 400);
      const gone = await post(url, auth, { ...ok, model: 'gpt-image-1' });
      assert.equal(gone.status, 404);
      assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'model_not_found');
    } finally {
      await fake.close();
    }
  });

  test('replicate: an input the model lacks, a value outside an enum, a stray top-level field', async () => {
    const fake = await startFakeReplicate({
      token: 't',
      models: [
        {
          name: 'o/m',
          version: 'v'.repeat(64),
          inputs: { prompt: { type: 'string' }, aspect_ratio: { type: 'string', enum: ['1:1'] } },
        },
      ],
    });
    try {
      const url = `${fake.baseUrl}/v1/models/o/m/predictions`;
      const auth = { authorization: 'Bearer t' };
      assert.equal((await post(url, auth, { input: { prompt: 'x' } })).status, 201);
      for (const body of [
        { input: { prompt: 'x', seed: 1 } },
        { input: { prompt: 'x', aspect_ratio: '16:9' } },
        { input: { prompt: 'x' }, model: 'o/m' },
        { input: {} },
      ]) {
        assert.equal((await post(url, auth, body)).status, 422, JSON.stringify(body));
      }
      assert.equal((await post(url, {}, { input: { prompt: 'x' } })).status, 401);
    } finally {
      await fake.close();
    }
  });

  test('image tools: an upscaler or remover without its image, a prompt it lacks, a factor out of range', async () => {
    const replicate = await startFakeReplicate({ token: 't', models: MODELS });
    const fal = await startFakeFal({
      apiKey: 'k',
      endpoints: ['fal-ai/clarity-upscaler', 'fal-ai/ben/v2/image'],
    });
    try {
      const image = `data:image/png;base64,${(await noisePng(8, 8)).toString('base64')}`;
      const esrgan = `${replicate.baseUrl}/v1/models/nightmareai/real-esrgan/predictions`;
      const auth = { authorization: 'Bearer t' };
      assert.equal((await post(esrgan, auth, { input: { image, scale: 2 } })).status, 201);
      for (const input of [{ scale: 2 }, { image, scale: 11 }, { image, prompt: 'x' }, { image, scale: '2' }])
        assert.equal((await post(esrgan, auth, { input })).status, 422, JSON.stringify(input));
      const key = { authorization: 'Key k' };
      assert.equal(
        (await post(`${fal.baseUrl}/fal-ai/clarity-upscaler`, key, { image_url: image })).status,
        200,
      );
      for (const [endpoint, input] of [
        ['fal-ai/clarity-upscaler', { upscale_factor: 2 }],
        ['fal-ai/clarity-upscaler', { image_url: image, upscale_factor: 8 }],
        ['fal-ai/ben/v2/image', { prompt: 'x' }],
      ] as const)
        assert.equal(
          (await post(`${fal.baseUrl}/${endpoint}`, key, input)).status,
          422,
          JSON.stringify(input),
        );
    } finally {
      await replicate.close();
      await fal.close();
    }
  });
});

// Where the fakes still differed from the real APIs (issue 38), and the adapters over them.
describe('fake upstreams answer as the real APIs do', () => {
  const KEY = 'AIzaTestKey-0123456789abcdefghijklmnop';
  const generate = (baseUrl: string, model: string, body: unknown) =>
    post(`${baseUrl}/v1beta/models/${model}:generateContent`, { 'x-goog-api-key': KEY }, body);

  test('gemini 3: the image part carries a thoughtSignature, and the adapter still reads the image', async () => {
    const fake = await startFakeGemini({ apiKey: KEY });
    try {
      const answer = await generate(fake.baseUrl, 'gemini-3-pro-image', {
        contents: [{ role: 'user', parts: [{ text: 'a lighthouse' }] }],
        generationConfig: { responseModalities: ['IMAGE'] },
      });
      assert.equal(answer.status, 200);
      const json = (await answer.json()) as {
        candidates: Array<{ content: { parts: Array<{ inlineData?: unknown; thoughtSignature?: string }> } }>;
      };
      const image = json.candidates[0]?.content.parts.find((part) => part.inlineData);
      assert.match(image?.thoughtSignature ?? '', /^[A-Za-z0-9+/]{40,}={0,2}$/);
      const provider = createGeminiProvider({ baseUrl: fake.baseUrl });
      const outcome = await provider.submit(
        providerRequest({ upstreamModel: 'gemini-3-pro-image', apiKey: KEY }),
      );
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome).slice(0, 200));
    } finally {
      await fake.close();
    }
  });

  test('gemini: an oversized request is 400 INVALID_ARGUMENT (HTTP 400), and the adapter says so', async () => {
    const fake = await startFakeGemini({ apiKey: KEY, maxRequestBytes: 50_000 });
    try {
      const big = { contents: [{ role: 'user', parts: [{ text: 'x'.repeat(60_000) }] }] };
      const answer = await generate(fake.baseUrl, 'gemini-3-pro-image', big);
      assert.equal(answer.status, 400);
      const { error } = (await answer.json()) as { error: { code: number; status: string; message: string } };
      assert.deepEqual([error.code, error.status], [400, 'INVALID_ARGUMENT']);
      assert.match(error.message, /^Request payload size exceeds the limit/);
      // The adapter believes the upstream takes more than it does: the refusal is a final failure.
      const provider = createGeminiProvider({ baseUrl: fake.baseUrl });
      const reference = await noisePng(256, 256);
      const outcome = await provider.submit(
        providerRequest({
          upstreamModel: 'gemini-3-pro-image',
          apiKey: KEY,
          mode: 'edit',
          references: [{ bytes: reference, contentType: 'image/png', width: 256, height: 256 }],
        }),
      );
      assert.equal(outcome.kind, 'failed');
      if (outcome.kind === 'failed') {
        assert.match(outcome.message, /\(HTTP 400 INVALID_ARGUMENT\)/);
        assert.equal(outcome.retryable, false);
      }
    } finally {
      await fake.close();
    }
  });

  test('replicate: an official model run by name reports version "hidden"; a version run names its version', async () => {
    const version = 'v'.repeat(64);
    const fake = await startFakeReplicate({
      token: 't',
      models: [{ name: 'google/nano-banana-pro', version, inputs: { prompt: { type: 'string' } } }],
    });
    try {
      const auth = { authorization: 'Bearer t' };
      const official = await post(`${fake.baseUrl}/v1/models/google/nano-banana-pro/predictions`, auth, {
        input: { prompt: 'x' },
      });
      const created = (await official.json()) as { id: string; version: string };
      assert.equal(created.version, 'hidden');
      const polled = await fetch(`${fake.baseUrl}/v1/predictions/${created.id}`, { headers: auth });
      assert.equal(((await polled.json()) as { version: string }).version, 'hidden');
      const pinned = await post(`${fake.baseUrl}/v1/predictions`, auth, { version, input: { prompt: 'x' } });
      assert.equal(((await pinned.json()) as { version: string }).version, version);
    } finally {
      await fake.close();
    }
  });
});
