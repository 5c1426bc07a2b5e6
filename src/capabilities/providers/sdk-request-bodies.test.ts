/**
 * The request each adapter sends, compared with what the provider's own SDK sends for the same call
 * (`@google/genai` 3.3, `openai` 7.57, `replicate` 1.4, each pointed at the same loopback fake and
 * called the way the provider's docs show): path, the headers that matter, and the body deep-equal,
 * per adapter and per mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import Replicate from 'replicate';
import { type FakeGemini, startFakeGemini } from '../../../test/fakes/providers/fake-gemini.js';
import type { RecordedRequest } from '../../../test/fakes/providers/fake-http.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { createGeminiProvider } from './gemini-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ProviderRequest, ReferenceImage, SubmitOutcome } from './provider.js';
import { seedForTask } from './replicate-inputs.js';
import { createReplicateProvider } from './replicate-provider.js';

const PROMPT = 'the same harbour, at night';

function assertAccepted(outcome: SubmitOutcome): void {
  assert.notEqual(outcome.kind, 'failed', JSON.stringify(outcome).slice(0, 300));
}

const base64 = (image: ReferenceImage) => image.bytes.toString('base64');

describe('Gemini: the adapter sends what @google/genai sends', () => {
  const KEY = 'AIzaSdkCompare-0123456789abcdefghijk';
  let fake: FakeGemini;
  let refs: ReferenceImage[];
  before(async () => {
    fake = await startFakeGemini({ apiKey: KEY });
    refs = [
      await referenceImage(96, 64),
      await referenceImage(64, 64, '#aa2200'),
      await referenceImage(40, 80, '#0000ff'),
    ];
  });
  after(() => fake.close());

  /** The adapter's request and the SDK's, for one call. */
  async function both(request: ProviderRequest, sdkCall: (ai: GoogleGenAI) => Promise<unknown>) {
    assertAccepted(await createGeminiProvider({ baseUrl: fake.baseUrl }).submit(request));
    const ours = fake.calls.at(-1)?.raw as RecordedRequest;
    await sdkCall(new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.baseUrl } }));
    const theirs = fake.calls.at(-1)?.raw as RecordedRequest;
    assert.notEqual(ours, theirs);
    for (const raw of [ours, theirs]) assert.equal(raw.headers['x-goog-api-key'], KEY);
    assert.equal(ours.method, theirs.method);
    assert.equal(ours.path, theirs.path);
    assert.match(String(ours.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(ours.body.toString()), JSON.parse(theirs.body.toString()));
  }

  const request = (overrides: Partial<ProviderRequest>) =>
    providerRequest({ upstreamModel: 'gemini-3-pro-image', apiKey: KEY, prompt: PROMPT, ...overrides });
  const parts = (images: ReferenceImage[]) => [
    { text: PROMPT },
    ...images.map((image) => ({ inlineData: { mimeType: image.contentType, data: base64(image) } })),
  ];

  test('text', () =>
    both(request({ aspect: '16:9', imageSize: '4K' }), (ai) =>
      ai.models.generateContent({
        model: 'gemini-3-pro-image',
        contents: PROMPT,
        config: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '4K' } },
      }),
    ));

  test('edit', () =>
    both(request({ mode: 'edit', references: refs.slice(0, 1), aspect: '3:2', imageSize: '2K' }), (ai) =>
      ai.models.generateContent({
        model: 'gemini-3-pro-image',
        contents: parts(refs.slice(0, 1)),
        config: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '3:2', imageSize: '2K' } },
      }),
    ));

  test('edit without a named aspect (no aspectRatio)', () =>
    both(
      request({ mode: 'edit', references: refs.slice(0, 1), keepReferenceAspect: true, imageSize: '1K' }),
      (ai) =>
        ai.models.generateContent({
          model: 'gemini-3-pro-image',
          contents: parts(refs.slice(0, 1)),
          config: { responseModalities: ['IMAGE'], imageConfig: { imageSize: '1K' } },
        }),
    ));

  test('fusion', () =>
    both(request({ mode: 'fusion', references: refs, aspect: '1:1', imageSize: '1K' }), (ai) =>
      ai.models.generateContent({
        model: 'gemini-3-pro-image',
        contents: parts(refs),
        config: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '1K' } },
      }),
    ));
});

describe('OpenAI: the adapter sends what the openai client sends', () => {
  const KEY = 'sk-sdk-compare-0123456789abcdefghij';
  let fake: FakeOpenAI;
  let refs: ReferenceImage[];
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
    refs = [await referenceImage(96, 64), await referenceImage(64, 64, '#aa2200')];
  });
  after(() => fake.close());

  const client = () => new OpenAI({ apiKey: KEY, baseURL: `${fake.baseUrl}/v1`, maxRetries: 0 });
  const request = (overrides: Partial<ProviderRequest>) =>
    providerRequest({ upstreamModel: 'gpt-image-2.5-sunburst', apiKey: KEY, prompt: PROMPT, ...overrides });

  /** A multipart body as [name, value] pairs (files as name, type and bytes), sorted by name. */
  async function formOf(raw: RecordedRequest) {
    const form = await new Response(new Uint8Array(raw.body), {
      headers: { 'content-type': String(raw.headers['content-type']) },
    }).formData();
    const entries: Array<[string, unknown]> = [];
    for (const [name, value] of form.entries()) {
      entries.push([
        name,
        typeof value === 'string'
          ? value
          : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) },
      ]);
    }
    // Field order is the caller's object order in the client; the API reads fields by name.
    return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async function both(request: ProviderRequest, sdkCall: (openai: OpenAI) => Promise<unknown>) {
    assertAccepted(await createOpenAIProvider({ baseUrl: fake.baseUrl }).submit(request));
    const ours = fake.calls.at(-1)?.raw as RecordedRequest;
    await sdkCall(client());
    const theirs = fake.calls.at(-1)?.raw as RecordedRequest;
    assert.notEqual(ours, theirs);
    for (const raw of [ours, theirs]) assert.equal(raw.headers.authorization, `Bearer ${KEY}`);
    assert.equal(ours.method, theirs.method);
    assert.equal(ours.path, theirs.path);
    if (ours.path.endsWith('/generations')) {
      assert.match(String(ours.headers['content-type']), /^application\/json/);
      assert.deepEqual(JSON.parse(ours.body.toString()), JSON.parse(theirs.body.toString()));
    } else {
      assert.match(String(ours.headers['content-type']), /^multipart\/form-data; boundary=/);
      assert.deepEqual(await formOf(ours), await formOf(theirs));
    }
  }

  const files = (images: ReferenceImage[]) =>
    Promise.all(
      images.map((image, i) => toFile(image.bytes, `reference-${i + 1}.png`, { type: image.contentType })),
    );

  test('text (a 4K custom size)', () =>
    both(request({ aspect: '16:9', imageSize: '4K' }), (openai) =>
      openai.images.generate({ model: 'gpt-image-2.5-sunburst', prompt: PROMPT, n: 1, size: '3840x2160' }),
    ));

  test('edit', async () => {
    const image = await files(refs.slice(0, 1));
    await both(
      request({ mode: 'edit', references: refs.slice(0, 1), aspect: '2:3', imageSize: '2K' }),
      (openai) =>
        openai.images.edit({
          model: 'gpt-image-2.5-sunburst',
          image,
          prompt: PROMPT,
          n: 1,
          size: '1680x2512',
        }),
    );
  });

  test('edit without a named aspect (the size nearest the reference, 96x64 = 3:2)', async () => {
    const image = await files(refs.slice(0, 1));
    await both(request({ mode: 'edit', references: refs.slice(0, 1), keepReferenceAspect: true }), (openai) =>
      openai.images.edit({ model: 'gpt-image-2.5-sunburst', image, prompt: PROMPT, n: 1, size: '1248x832' }),
    );
  });

  test('fusion', async () => {
    const image = await files(refs);
    await both(request({ mode: 'fusion', references: refs, aspect: '1:1', imageSize: '1K' }), (openai) =>
      openai.images.edit({ model: 'gpt-image-2.5-sunburst', image, prompt: PROMPT, n: 1, size: '1024x1024' }),
    );
  });
});

describe('Replicate: the adapter sends what the replicate client sends', () => {
  const TOKEN = 'r8_sdkCompare0123456789abcdefghij';
  const VERSION = 'c'.repeat(64);
  let fake: FakeReplicate;
  let refs: ReferenceImage[];
  before(async () => {
    fake = await startFakeReplicate({
      token: TOKEN,
      models: [
        {
          name: 'google/nano-banana-pro',
          version: VERSION,
          inputs: {
            prompt: { type: 'string' },
            image_input: { type: 'array', maxItems: 14 },
            aspect_ratio: { type: 'string', enum: ['match_input_image', '1:1', '3:2', '16:9'] },
            resolution: { type: 'string', enum: ['1K', '2K', '4K'] },
            seed: { type: 'integer' },
          },
        },
      ],
    });
    refs = [await referenceImage(96, 64), await referenceImage(64, 64, '#aa2200')];
  });
  after(() => fake.close());

  const client = () => new Replicate({ auth: TOKEN, baseUrl: `${fake.baseUrl}/v1` });
  const dataUrl = (image: ReferenceImage) => `data:${image.contentType};base64,${base64(image)}`;

  async function both(request: ProviderRequest, sdkCall: (replicate: Replicate) => Promise<unknown>) {
    assertAccepted(await createReplicateProvider({ baseUrl: fake.baseUrl }).submit(request));
    const ours = fake.requests.findLast((r) => r.method === 'POST') as RecordedRequest;
    await sdkCall(client());
    const theirs = fake.requests.findLast((r) => r.method === 'POST') as RecordedRequest;
    assert.notEqual(ours, theirs);
    for (const raw of [ours, theirs]) assert.equal(raw.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(ours.path, theirs.path);
    assert.match(String(ours.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(ours.body.toString()), JSON.parse(theirs.body.toString()));
  }

  const request = (overrides: Partial<ProviderRequest>) =>
    providerRequest({ upstreamModel: 'google/nano-banana-pro', apiKey: TOKEN, prompt: PROMPT, ...overrides });

  test('text (official model route)', () => {
    const req = request({ aspect: '16:9', imageSize: '2K' });
    return both(req, (replicate) =>
      replicate.predictions.create({
        model: 'google/nano-banana-pro',
        input: { prompt: PROMPT, aspect_ratio: '16:9', resolution: '2K', seed: seedForTask(req.taskId) },
      }),
    );
  });

  test('edit', () => {
    const req = request({ mode: 'edit', references: refs.slice(0, 1), aspect: '1:1', imageSize: '1K' });
    return both(req, (replicate) =>
      replicate.predictions.create({
        model: 'google/nano-banana-pro',
        input: {
          prompt: PROMPT,
          aspect_ratio: '1:1',
          resolution: '1K',
          image_input: [dataUrl(refs[0] as ReferenceImage)],
          seed: seedForTask(req.taskId),
        },
      }),
    );
  });

  test('edit without a named aspect (match_input_image), on a pinned version', () => {
    const req = request({
      upstreamModel: `google/nano-banana-pro:${VERSION}`,
      mode: 'edit',
      references: refs.slice(0, 1),
      keepReferenceAspect: true,
    });
    return both(req, (replicate) =>
      replicate.predictions.create({
        version: VERSION,
        input: {
          prompt: PROMPT,
          aspect_ratio: 'match_input_image',
          resolution: '1K',
          image_input: [dataUrl(refs[0] as ReferenceImage)],
          seed: seedForTask(req.taskId),
        },
      }),
    );
  });

  test('fusion', () => {
    const req = request({ mode: 'fusion', references: refs, aspect: '3:2', imageSize: '4K' });
    return both(req, (replicate) =>
      replicate.predictions.create({
        model: 'google/nano-banana-pro',
        input: {
          prompt: PROMPT,
          aspect_ratio: '3:2',
          resolution: '4K',
          image_input: refs.map(dataUrl),
          seed: seedForTask(req.taskId),
        },
      }),
    );
  });
});
