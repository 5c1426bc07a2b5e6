/**
 * The fakes must refuse what the real upstreams refuse, or the adapter tests prove nothing:
 * each wrong field below is one an adapter could plausibly send.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeGemini } from './fake-gemini.js';
import { startFakeOpenAI } from './fake-openai.js';
import { startFakeReplicate } from './fake-replicate.js';

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
});
