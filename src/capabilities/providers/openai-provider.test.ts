import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { solidGif } from '../../../test/fakes/providers/fake-http.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { parseCatalog } from '../catalog/index.js';
import { createOpenAIProvider } from './openai-provider.js';
import { CUSTOM_SIZE_LIMITS, nearestSize, openAISizing, ratioOf, sizeFor } from './openai-sizes.js';
import type { ProviderFailure, SubmitOutcome } from './provider.js';

const KEY = 'sk-test-0123456789abcdefghijklmnop';

function assertFailed(outcome: SubmitOutcome): asserts outcome is ProviderFailure {
  assert.equal(outcome.kind, 'failed', `expected a failure, got ${JSON.stringify(outcome).slice(0, 200)}`);
}

function assertDone(outcome: SubmitOutcome): asserts outcome is Extract<SubmitOutcome, { kind: 'done' }> {
  assert.equal(outcome.kind, 'done', `expected done, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

describe('openai sizes', () => {
  const standard = ['1024x1024', '1536x1024', '1024x1536'];
  test('older GPT image models: each aspect maps to the nearest standard size, 1K only', () => {
    const expected: Record<string, string> = {
      '1:1': '1024x1024',
      '3:2': '1536x1024',
      '2:3': '1024x1536',
      '4:3': '1536x1024',
      '3:4': '1024x1536',
      '16:9': '1536x1024',
      '9:16': '1024x1536',
      '21:9': '1536x1024',
      '5:4': '1536x1024',
      '4:5': '1024x1536',
    };
    for (const [aspect, size] of Object.entries(expected)) {
      assert.equal(nearestSize(ratioOf(aspect), standard), size, aspect);
      assert.equal(sizeFor('gpt-image-1.5', '1K', ratioOf(aspect)), size, aspect);
    }
    assert.match(JSON.stringify(sizeFor('gpt-image-1-mini', '2K', 1)), /makes no 2K images/);
  });

  test('GPT image 2 / 2.5: custom sizes inside every documented limit, 4K = the largest the API makes', () => {
    assert.equal(sizeFor('gpt-image-2.5-flare', '1K', 1), '1024x1024');
    assert.equal(sizeFor('gpt-image-2.5-flare', '2K', 1), '2048x2048');
    assert.equal(sizeFor('gpt-image-2.5-sunburst', '4K', 16 / 9), '3840x2160');
    assert.equal(sizeFor('gpt-image-2.5-sunburst-2026-09-08', '4K', 9 / 16), '2160x3840');
    assert.equal(sizeFor('gpt-image-2', '4K', 1), '2880x2880');
    assert.match(JSON.stringify(sizeFor('gpt-image-2.5-flare', '1K', 4)), /between 1:3 and 3:1/);
    const { multiple, maxEdge, maxPixels, minPixels, maxRatio } = CUSTOM_SIZE_LIMITS;
    for (const aspect of [
      '1:1',
      '2:3',
      '3:2',
      '3:4',
      '4:3',
      '9:16',
      '16:9',
      '21:9',
      '4:5',
      '5:4',
      '1:3',
      '3:1',
    ]) {
      for (const imageSize of ['1K', '2K', '4K'] as const) {
        const size = sizeFor('gpt-image-2.5-flare', imageSize, ratioOf(aspect));
        assert.equal(typeof size, 'string', `${aspect} ${imageSize}`);
        const [w = 0, h = 0] = String(size).split('x').map(Number);
        assert.ok(w % multiple === 0 && h % multiple === 0, `${size}`);
        assert.ok(Math.max(w, h) <= maxEdge && w * h <= maxPixels && w * h >= minPixels, `${size}`);
        assert.ok(Math.max(w, h) / Math.min(w, h) <= maxRatio + 1e-9, `${size}`);
        assert.ok(Math.abs(w / h / ratioOf(aspect) - 1) < 0.02, `${aspect} ${imageSize} → ${size}`);
      }
    }
  });
});

describe('openai provider', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
  });
  after(() => fake.close());

  const provider = (options: Parameters<typeof createOpenAIProvider>[0] = {}) =>
    createOpenAIProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000, ...options });
  const request = (overrides: Parameters<typeof providerRequest>[0] = {}) =>
    providerRequest({ upstreamModel: 'gpt-image-1.5', apiKey: KEY, ...overrides });

  test('text: JSON generation with the nearest size, b64_json decoded', async () => {
    const outcome = await provider().submit(request({ aspect: '16:9' }));
    assertDone(outcome);
    assert.ok('bytes' in outcome.image);
    assert.equal(outcome.image.contentType, 'image/png');
    const call = fake.calls.at(-1);
    assert.equal(call?.endpoint, 'generations');
    assert.deepEqual(call?.params, {
      model: 'gpt-image-1.5',
      prompt: 'a lighthouse at dawn',
      n: 1,
      size: '1536x1024',
    });
  });

  test('quality is passed through when configured', async () => {
    assertDone(await provider({ quality: 'high' }).submit(request()));
    assert.equal(fake.calls.at(-1)?.params.quality, 'high');
  });

  test('GPT image 2.5: 2K and 4K at the requested ratio, as custom sizes', async () => {
    assertDone(
      await provider().submit(
        request({ upstreamModel: 'gpt-image-2.5-flare', aspect: '16:9', imageSize: '4K' }),
      ),
    );
    assert.deepEqual(fake.calls.at(-1)?.params, {
      model: 'gpt-image-2.5-flare',
      prompt: 'a lighthouse at dawn',
      n: 1,
      size: '3840x2160',
    });
    assertDone(
      await provider().submit(
        request({ upstreamModel: 'gpt-image-2.5-sunburst', aspect: '3:4', imageSize: '2K' }),
      ),
    );
    assert.equal(fake.calls.at(-1)?.params.size, '1776x2368');
  });

  test('a model the API does not have (shut down): 404 model_not_found, final, naming the model', async () => {
    const outcome = await provider().submit(request({ upstreamModel: 'gpt-image-1' }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'model_not_found');
    assert.match(
      outcome.message,
      /model gpt-image-1 not found upstream \(HTTP 404 model_not_found invalid_request_error\)/,
    );
  });

  test('an edit without a named aspect gets the size nearest the reference ratio', async () => {
    const wide = await referenceImage(300, 100);
    const edit = { mode: 'edit' as const, references: [wide], keepReferenceAspect: true, aspect: '1:1' };
    assertDone(await provider().submit(request({ ...edit, upstreamModel: 'gpt-image-2.5-flare' })));
    assert.equal(fake.calls.at(-1)?.params.size, '1776x592');
    assertDone(await provider().submit(request(edit)));
    assert.equal(fake.calls.at(-1)?.params.size, '1536x1024');
    // A named aspect wins over the reference.
    assertDone(await provider().submit(request({ ...edit, keepReferenceAspect: false, aspect: '2:3' })));
    assert.equal(fake.calls.at(-1)?.params.size, '1024x1536');
  });

  test('edit: multipart with one image[] part', async () => {
    const reference = await referenceImage();
    const outcome = await provider().submit(
      request({ mode: 'edit', references: [reference], aspect: '2:3' }),
    );
    assertDone(outcome);
    const call = fake.calls.at(-1);
    assert.equal(call?.endpoint, 'edits');
    assert.deepEqual(call?.params, {
      model: 'gpt-image-1.5',
      prompt: 'a lighthouse at dawn',
      n: '1',
      size: '1024x1536',
    });
    assert.equal(call?.images.length, 1);
    assert.equal(call?.images[0]?.field, 'image[]');
    assert.deepEqual(call?.images[0]?.bytes, reference.bytes);
  });

  test('fusion: several image[] parts, a GIF converted to PNG', async () => {
    const gif = { bytes: await solidGif(30, 30), contentType: 'image/gif', width: 30, height: 30 };
    const outcome = await provider().submit(
      request({
        mode: 'fusion',
        references: [await referenceImage(), gif, await referenceImage(40, 40, '#000000')],
      }),
    );
    assertDone(outcome);
    const images = fake.calls.at(-1)?.images ?? [];
    assert.deepEqual(
      images.map((i) => [i.field, i.type]),
      [
        ['image[]', 'image/png'],
        ['image[]', 'image/png'],
        ['image[]', 'image/png'],
      ],
    );
    assert.equal((await sharp(images[1]?.bytes ?? Buffer.alloc(0)).metadata()).format, 'png');
  });

  test('2K is refused on a standard-size model (every size is ~1 MP) instead of silently shrunk', async () => {
    const before = fake.requests.length;
    const outcome = await provider().submit(request({ imageSize: '2K' }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.match(outcome.message, /no 2K images/);
    assert.equal(fake.requests.length, before);
  });

  test('a moderation block is a final failure naming the safety system and the code', async () => {
    fake.script({
      kind: 'error',
      status: 400,
      json: {
        error: {
          message: 'Your request was rejected by the safety system.',
          type: 'image_generation_user_error',
          param: null,
          code: 'moderation_blocked',
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'blocked');
    assert.match(outcome.message, /refused by the safety system.*\(HTTP 400 moderation_blocked/);
  });

  test('a wrong key: 401, final, and the echoed key never copied', async () => {
    const wrong = 'sk-wrong-abcdefghijklmnopqrstuvwxyz';
    const outcome = await provider().submit(request({ apiKey: wrong }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'unauthorized');
    assert.match(outcome.message, /key was rejected.*\(HTTP 401 invalid_api_key/);
    assert.ok(!outcome.message.includes(wrong));
  });

  test('429 is retryable with Retry-After', async () => {
    fake.script({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '3' },
      json: {
        error: {
          message: 'Rate limit reached for gpt-image-1',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.retryAfterMs, 3000);
    assert.equal(outcome.cause, 'rate_limited');
  });

  test('429 insufficient_quota is final: no retry can fix a billing limit', async () => {
    fake.script({
      kind: 'error',
      status: 429,
      json: {
        error: {
          message: 'You exceeded your current quota.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    // Not a rate limit: the engine fails the task at once instead of waiting for capacity.
    assert.equal(outcome.cause, 'quota_exhausted');
  });

  test('500 is a retryable failure, and the next submit succeeds', async () => {
    fake.script({
      kind: 'error',
      status: 500,
      json: { error: { message: 'The server had an error', type: 'server_error' } },
    });
    const p = provider();
    const first = await p.submit(request());
    assertFailed(first);
    assert.equal(first.retryable, true);
    assert.equal(first.cause, 'upstream_error');
    assertDone(await p.submit(request()));
  });

  test('a hung connection times out as retryable and maybe-accepted', async () => {
    fake.script({ kind: 'hang' });
    const outcome = await provider({ requestTimeoutMs: 200 }).submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.maybeAccepted, true);
    assert.equal(outcome.cause, 'timeout');
  });

  test('malformed JSON is a retryable bad response', async () => {
    fake.script({ kind: 'malformed' });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.maybeAccepted, true);
    assert.equal(outcome.cause, 'bad_response');
  });

  test('no key at all fails before any call', async () => {
    const before = fake.requests.length;
    const outcome = await provider().submit(request({ apiKey: null }));
    assertFailed(outcome);
    assert.equal(outcome.cause, 'unauthorized');
    assert.equal(fake.requests.length, before);
  });
});

describe('catalogs/openai.json', () => {
  test('parses; every model makes every size and aspect its entry lists', () => {
    const json = JSON.parse(readFileSync(new URL('../../../catalogs/openai.json', import.meta.url), 'utf8'));
    const catalog = parseCatalog(json, ['local', 'gemini', 'openai', 'replicate']);
    for (const model of catalog.models) {
      assert.equal(model.provider, 'openai');
      assert.equal(openAISizing(model.upstreamModel).kind, 'custom', model.id);
      for (const size of model.sizes) {
        for (const aspect of model.aspects) {
          const made = sizeFor(model.upstreamModel, size, ratioOf(aspect));
          assert.equal(typeof made, 'string', `${model.id}: ${aspect} ${size}`);
        }
      }
    }
  });
});
