import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { parseCatalog } from '../catalog/catalog.js';
import { createOpenAIProvider, nearestSize, openAISizes } from './openai-provider.js';
import type { ProviderFailure, SubmitOutcome } from './provider.js';
import { solidGif } from './testing/fake-http.js';
import { type FakeOpenAI, startFakeOpenAI } from './testing/fake-openai.js';
import { providerRequest, referenceImage } from './testing/provider-request.js';

const KEY = 'sk-test-0123456789abcdefghijklmnop';

function assertFailed(outcome: SubmitOutcome): asserts outcome is ProviderFailure {
  assert.equal(outcome.kind, 'failed', `expected a failure, got ${JSON.stringify(outcome).slice(0, 200)}`);
}

function assertDone(outcome: SubmitOutcome): asserts outcome is Extract<SubmitOutcome, { kind: 'done' }> {
  assert.equal(outcome.kind, 'done', `expected done, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

describe('nearestSize', () => {
  const gpt = ['1024x1024', '1536x1024', '1024x1536'];
  test('maps each listed aspect to the nearest GPT image size', () => {
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
    for (const [aspect, size] of Object.entries(expected))
      assert.equal(nearestSize(aspect, gpt), size, aspect);
  });

  test('uses the DALL·E 3 table when given it', () => {
    assert.equal(nearestSize('16:9', ['1024x1024', '1792x1024', '1024x1792']), '1792x1024');
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
    providerRequest({ upstreamModel: 'gpt-image-1', apiKey: KEY, ...overrides });

  test('text: JSON generation with the nearest size, b64_json decoded', async () => {
    const outcome = await provider().submit(request({ aspect: '16:9' }));
    assertDone(outcome);
    assert.ok('bytes' in outcome.image);
    assert.equal(outcome.image.contentType, 'image/png');
    const call = fake.calls.at(-1);
    assert.equal(call?.endpoint, 'generations');
    assert.deepEqual(call?.params, {
      model: 'gpt-image-1',
      prompt: 'a lighthouse at dawn',
      n: 1,
      size: '1536x1024',
    });
  });

  test('quality is passed through when configured', async () => {
    assertDone(await provider({ quality: 'high' }).submit(request()));
    assert.equal(fake.calls.at(-1)?.params.quality, 'high');
  });

  test('dall-e-3: asks for b64_json and uses its own sizes', async () => {
    const outcome = await provider().submit(request({ upstreamModel: 'dall-e-3', aspect: '9:16' }));
    assertDone(outcome);
    assert.deepEqual(fake.calls.at(-1)?.params, {
      model: 'dall-e-3',
      prompt: 'a lighthouse at dawn',
      n: 1,
      size: '1024x1792',
      response_format: 'b64_json',
    });
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
      model: 'gpt-image-1',
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

  test('dall-e-3 cannot edit: a final failure before any call', async () => {
    const before = fake.requests.length;
    const outcome = await provider().submit(
      request({ upstreamModel: 'dall-e-3', mode: 'edit', references: [await referenceImage()] }),
    );
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(fake.requests.length, before);
  });

  test('2K is refused (every OpenAI size is ~1 MP) instead of silently shrunk', async () => {
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
  test('parses; every size is one the model makes and every aspect maps to an exact size', () => {
    const json = JSON.parse(readFileSync(new URL('../../catalogs/openai.json', import.meta.url), 'utf8'));
    const catalog = parseCatalog(json, ['local', 'gemini', 'openai', 'replicate']);
    for (const model of catalog.models) {
      assert.equal(model.provider, 'openai');
      const table = openAISizes(model.upstreamModel);
      for (const size of model.sizes) {
        const sizes = table[size];
        assert.ok(sizes, `${model.id}: ${size}`);
        for (const aspect of model.aspects) {
          const [w, h] = aspect.split(':').map(Number);
          const [sw, sh] = nearestSize(aspect, sizes).split('x').map(Number);
          assert.ok(
            Math.abs((w ?? 1) / (h ?? 1) - (sw ?? 1) / (sh ?? 1)) < 0.01,
            `${model.id}: ${aspect} is not approximated`,
          );
        }
      }
    }
  });
});
