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
    const fake = await startFakeGemini({ apiKey: 'k' });
    try {
      const ok = {
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { responseModalities: ['IMAGE'] },
      };
      const url = (model: string) => `${fake.baseUrl}/v1beta/models/${model}:generateContent`;
      assert.equal(
        (await post(url('gemini-3-pro-image-preview'), { 'x-goog-api-key': 'k' }, ok)).status,
        200,
      );
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
          (await post(url('gemini-3-pro-image-preview'), { 'x-goog-api-key': 'k' }, body)).status,
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
      const ok = { model: 'gpt-image-1', prompt: 'x', n: 1, size: '1024x1024' };
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
      form.append('model', 'gpt-image-1');
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
