import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BlockedReason, FinishReason } from '@google/genai';
import sharp from 'sharp';
import {
  type FakeGemini,
  GEMINI_IMAGE_MODELS,
  startFakeGemini,
} from '../../../test/fakes/providers/fake-gemini.js';
import { noisePng, solidGif } from '../../../test/fakes/providers/fake-http.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { generationModels, parseCatalog } from '../catalog/index.js';
import { createGeminiProvider, geminiRefusesImageSize } from './gemini-provider.js';
import type { ProviderFailure, SubmitOutcome } from './provider.js';

const KEY = 'AIzaTestKey-0123456789abcdefghijklmnop';

function assertFailed(outcome: SubmitOutcome): asserts outcome is ProviderFailure {
  assert.equal(outcome.kind, 'failed', `expected a failure, got ${JSON.stringify(outcome).slice(0, 200)}`);
}

function assertDone(outcome: SubmitOutcome): asserts outcome is Extract<SubmitOutcome, { kind: 'done' }> {
  assert.equal(outcome.kind, 'done', `expected done, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

describe('gemini provider', () => {
  let fake: FakeGemini;
  before(async () => {
    // A 2.x image model is gone from the Gemini API; this fake still serves one, as a proxy might.
    fake = await startFakeGemini({ apiKey: KEY, models: [...GEMINI_IMAGE_MODELS, 'gemini-2.5-flash-image'] });
  });
  after(() => fake.close());

  const provider = () => createGeminiProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
  const request = (overrides: Parameters<typeof providerRequest>[0] = {}) =>
    providerRequest({ upstreamModel: 'gemini-3-pro-image', apiKey: KEY, ...overrides });

  test('text: sends the prompt, aspect and size, and returns the inline image', async () => {
    const outcome = await provider().submit(request({ aspect: '16:9', imageSize: '2K' }));
    assertDone(outcome);
    assert.ok('bytes' in outcome.image);
    assert.equal(outcome.image.contentType, 'image/png');
    const meta = await sharp(outcome.image.bytes).metadata();
    assert.ok((meta.width ?? 0) > (meta.height ?? 0), 'a landscape result for 16:9');
    const call = fake.calls.at(-1);
    assert.equal(call?.model, 'gemini-3-pro-image');
    assert.deepEqual(call?.body.generationConfig, {
      responseModalities: ['IMAGE'],
      imageConfig: { aspectRatio: '16:9', imageSize: '2K' },
    });
    assert.deepEqual(call?.body.contents[0]?.parts, [{ text: 'a lighthouse at dawn' }]);
  });

  test('every finish reason the SDK defines keeps its name; the policy ones are blocks', async () => {
    const policy = new Set([
      'SAFETY',
      'IMAGE_SAFETY',
      'PROHIBITED_CONTENT',
      'IMAGE_PROHIBITED_CONTENT',
      'BLOCKLIST',
      'SPII',
      'RECITATION',
      'IMAGE_RECITATION',
      'ESCALATION',
      'PUP_LIMITED_DISABLED',
      'MODEL_ARMOR',
    ]);
    for (const reason of Object.values(FinishReason)) {
      fake.script({ kind: 'finish', finishReason: reason });
      const outcome = await provider().submit(request());
      assertFailed(outcome);
      assert.ok(outcome.message.includes(`(${reason})`), `${reason}: ${outcome.message}`);
      assert.equal(outcome.cause, policy.has(reason) ? 'blocked' : 'invalid_request', reason);
      assert.equal(outcome.retryable, false, reason);
    }
    for (const reason of Object.values(BlockedReason)) {
      fake.script({ kind: 'blocked', blockReason: reason });
      const outcome = await provider().submit(request());
      assertFailed(outcome);
      assert.ok(outcome.message.includes(`(${reason})`), `${reason}: ${outcome.message}`);
      assert.equal(outcome.cause, 'blocked', reason);
    }
  });

  test('a model the API does not have (shut down): 404 NOT_FOUND, final, naming the model', async () => {
    const outcome = await provider().submit(request({ upstreamModel: 'gemini-3-pro-image-preview' }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'model_not_found');
    assert.match(
      outcome.message,
      /model gemini-3-pro-image-preview not found upstream \(HTTP 404 NOT_FOUND\)/,
    );
  });

  test("an edit without a named aspect sends no aspectRatio, and keeps the reference's ratio", async () => {
    const reference = await referenceImage(120, 40);
    const outcome = await provider().submit(
      request({
        mode: 'edit',
        references: [reference],
        keepReferenceAspect: true,
        aspect: '21:9',
        imageSize: '2K',
      }),
    );
    assertDone(outcome);
    assert.deepEqual(fake.calls.at(-1)?.body.generationConfig, {
      responseModalities: ['IMAGE'],
      imageConfig: { imageSize: '2K' },
    });
    assert.ok('bytes' in outcome.image);
    const meta = await sharp(outcome.image.bytes).metadata();
    assert.equal(Math.round((meta.width ?? 0) / (meta.height ?? 1)), 3, 'the reference is 3:1');
  });

  test('edit: the reference travels as an inlineData part', async () => {
    const reference = await referenceImage();
    const outcome = await provider().submit(
      request({ mode: 'edit', references: [reference], prompt: 'make it night' }),
    );
    assertDone(outcome);
    const parts = fake.calls.at(-1)?.body.contents[0]?.parts ?? [];
    assert.equal(parts.length, 2);
    const image = parts[1];
    assert.ok(image && 'inlineData' in image);
    assert.equal(image.inlineData.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(image.inlineData.data, 'base64'), reference.bytes);
  });

  test('fusion: several references, a GIF converted to PNG on the way', async () => {
    const gif = { bytes: await solidGif(40, 40), contentType: 'image/gif', width: 40, height: 40 };
    const outcome = await provider().submit(
      request({
        mode: 'fusion',
        references: [await referenceImage(), gif, await referenceImage(50, 50, '#ffcc00')],
      }),
    );
    assertDone(outcome);
    const parts = fake.calls.at(-1)?.body.contents[0]?.parts ?? [];
    const types = parts.flatMap((p) => ('inlineData' in p ? [p.inlineData.mimeType] : []));
    assert.deepEqual(types, ['image/png', 'image/png', 'image/png']);
  });

  test('a Gemini 2.5 image model is never sent imageSize; asking it for 2K fails before any call', async () => {
    const ok = await provider().submit(
      request({ upstreamModel: 'gemini-2.5-flash-image', imageSize: '1K', aspect: '4:5' }),
    );
    assertDone(ok);
    assert.deepEqual(fake.calls.at(-1)?.body.generationConfig.imageConfig, { aspectRatio: '4:5' });
    const before = fake.requests.length;
    const refused = await provider().submit(
      request({ upstreamModel: 'gemini-2.5-flash-image', imageSize: '2K' }),
    );
    assertFailed(refused);
    assert.equal(refused.retryable, false);
    assert.match(refused.message, /sizes \["1K"\]/);
    assert.equal(fake.requests.length, before, 'no upstream call');
  });

  test('skips interim "thought" images and keeps the final one', async () => {
    fake.script({ kind: 'image', thoughtFirst: true, text: 'Here you go' });
    const outcome = await provider().submit(request());
    assertDone(outcome);
    assert.ok('bytes' in outcome.image);
    const meta = await sharp(outcome.image.bytes).metadata();
    assert.equal(meta.width, 64, 'not the 8×8 thought image');
  });

  test('a blocked prompt is a final failure that names the block reason', async () => {
    fake.script({ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'blocked');
    assert.match(outcome.message, /PROHIBITED_CONTENT/);
  });

  test('an image blocked at output (finishReason IMAGE_SAFETY) is a final failure', async () => {
    fake.script({ kind: 'finish', finishReason: 'IMAGE_SAFETY' });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'blocked');
    assert.match(outcome.message, /safety/i);
  });

  test('a text-only answer fails with what the model said', async () => {
    fake.script({ kind: 'finish', finishReason: 'STOP', text: 'I can only describe it.' });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.match(outcome.message, /I can only describe it/);
  });

  test('a bad key (the real 400 API_KEY_INVALID) is final and never echoes the key', async () => {
    const wrongKey = 'AIzaWrongKey-9876543210zyxwvutsrqponm';
    const outcome = await provider().submit(request({ apiKey: wrongKey }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'unauthorized');
    assert.match(outcome.message, /API key/);
    assert.ok(!outcome.message.includes(wrongKey));
  });

  test('a 401 is final', async () => {
    fake.script({
      kind: 'error',
      status: 401,
      json: {
        error: {
          code: 401,
          message: `Request had invalid authentication credentials: ${KEY}`,
          status: 'UNAUTHENTICATED',
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'unauthorized');
    assert.ok(!outcome.message.includes(KEY), 'the key is scrubbed from the upstream message');
  });

  test('no key at all fails before any call', async () => {
    const before = fake.requests.length;
    const outcome = await provider().submit(request({ apiKey: null }));
    assertFailed(outcome);
    assert.equal(outcome.cause, 'unauthorized');
    assert.equal(fake.requests.length, before);
  });

  test('429 is retryable with retryAfterMs from Retry-After', async () => {
    fake.script({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7' },
      json: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.retryAfterMs, 7000);
    assert.equal(outcome.cause, 'rate_limited');
    assert.equal(outcome.message, 'Gemini: rate limited by the upstream (HTTP 429 RESOURCE_EXHAUSTED)');
  });

  test('429 without the header takes the delay from google.rpc.RetryInfo', async () => {
    fake.script({
      kind: 'error',
      status: 429,
      json: {
        error: {
          code: 429,
          message: 'You exceeded your current quota.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }],
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryAfterMs, 13_000);
  });

  test('500 is a retryable failure, and the next submit succeeds', async () => {
    fake.script({
      kind: 'error',
      status: 500,
      json: { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } },
    });
    const p = provider();
    const first = await p.submit(request());
    assertFailed(first);
    assert.equal(first.retryable, true);
    assert.equal(first.cause, 'upstream_error');
    assert.ok(!first.maybeAccepted, 'the upstream answered: nothing to reconcile');
    assertDone(await p.submit(request()));
  });

  test('a hung connection times out as retryable and maybe-accepted', async () => {
    fake.script({ kind: 'hang' });
    const p = createGeminiProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 200 });
    const outcome = await p.submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.maybeAccepted, true);
    assert.equal(outcome.cause, 'timeout');
  });

  test('malformed JSON is a retryable bad response (the work may have been done)', async () => {
    fake.script({ kind: 'malformed' });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.maybeAccepted, true);
    assert.equal(outcome.cause, 'bad_response');
  });

  test('an engine abort is reported as canceled, not as an upstream fault', async () => {
    fake.script({ kind: 'hang' });
    const controller = new AbortController();
    const pending = provider().submit(request({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const outcome = await pending;
    assertFailed(outcome);
    assert.equal(outcome.cause, 'canceled');
  });

  test("the engine's own deadline counts as a timeout", async () => {
    fake.script({ kind: 'hang' });
    const outcome = await provider().submit(request({ signal: AbortSignal.timeout(100) }));
    assertFailed(outcome);
    assert.equal(outcome.cause, 'timeout');
    assert.equal(outcome.maybeAccepted, true);
  });

  test('a refused connection is retryable and known not to have been accepted', async () => {
    const closed = await startFakeGemini({ apiKey: KEY });
    const url = closed.baseUrl;
    await closed.close();
    const outcome = await createGeminiProvider({ baseUrl: url }).submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.cause, 'network');
    assert.equal(outcome.maybeAccepted, false);
  });
});

describe('gemini provider request size', () => {
  test('downscales references so the request stays under the limit', async () => {
    const limit = 400_000;
    const fake = await startFakeGemini({ apiKey: KEY, maxRequestBytes: limit });
    try {
      const big = await noisePng(512, 512);
      assert.ok(big.length * 2 > limit, 'the fixture alone would exceed the limit twice over');
      const references = [
        { bytes: big, contentType: 'image/png', width: 512, height: 512 },
        { bytes: await noisePng(400, 300), contentType: 'image/png', width: 400, height: 300 },
      ];
      const provider = createGeminiProvider({ baseUrl: fake.baseUrl, maxRequestBytes: limit });
      const outcome = await provider.submit(
        providerRequest({
          upstreamModel: 'gemini-3-pro-image',
          apiKey: KEY,
          mode: 'fusion',
          references,
        }),
      );
      assertDone(outcome);
      const call = fake.calls.at(-1);
      assert.ok(call && call.raw.body.length <= limit);
      const sent =
        call.body.contents[0]?.parts.flatMap((p) => ('inlineData' in p ? [p.inlineData] : [])) ?? [];
      assert.equal(sent.length, 2);
      const first = await sharp(Buffer.from(sent[0]?.data ?? '', 'base64')).metadata();
      assert.ok((first.width ?? 512) < 512, 'the large reference was shrunk');
    } finally {
      await fake.close();
    }
  });

  test('references that cannot fit fail the task instead of being dropped', async () => {
    const provider = createGeminiProvider({ baseUrl: 'http://127.0.0.1:9', maxRequestBytes: 20_000 });
    const outcome = await provider.submit(
      providerRequest({
        upstreamModel: 'gemini-3-pro-image',
        mode: 'edit',
        references: [{ bytes: await noisePng(600, 600), contentType: 'image/png', width: 600, height: 600 }],
      }),
    );
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.match(outcome.message, /do not fit/);
  });
});

describe('catalogs/gemini.json', () => {
  test('parses, and lists only 1K for models without a size control', () => {
    const json = JSON.parse(readFileSync(new URL('../../../catalogs/gemini.json', import.meta.url), 'utf8'));
    const catalog = parseCatalog(json, ['local', 'gemini', 'openai', 'replicate']);
    // The models; the actions' routes (vary, expand) and the seeds: edit-actions.test.ts.
    const ids = generationModels(catalog).map((m) => m.id);
    assert.deepEqual(ids, ['base-image-2', 'pro', 'flash2', 'flash']);
    for (const model of catalog.models) {
      assert.equal(model.provider, 'gemini');
      if (geminiRefusesImageSize(model.upstreamModel)) assert.deepEqual(model.sizes, ['1K'], model.id);
    }
    assert.ok(catalog.get('pro')?.modes.includes('fusion'));
  });
});
