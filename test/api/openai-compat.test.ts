import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { sessionCookieOf } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';

/** The official client against a local Atelier, as a tool configured with OPENAI_BASE_URL would be. */
const clientOf = (t: TestApp, apiKey: string, options: { maxRetries?: number } = {}) =>
  new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, ...options });

/** The error a call throws (it must throw). */
async function rejection(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, `an APIError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call should have failed');
}

/** OpenAI's error body: exactly message, type, param and code. */
function assertOpenAiError(
  error: InstanceType<typeof OpenAI.APIError>,
  status: number,
  param: string | null,
) {
  assert.equal(error.status, status, error.message);
  assert.deepEqual(Object.keys(error.error as object).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(error.param, param);
  assert.equal(error.type, status >= 500 ? 'server_error' : 'invalid_request_error');
}

const get = async (t: TestApp, apiKey: string, path: string) =>
  (await fetch(`${t.baseUrl}${path}`, { headers: bearer(apiKey) })).json();

const historyOf = async (t: TestApp, apiKey: string) =>
  (await get(t, apiKey, '/api/v1/history?limit=50')) as {
    total: number;
    items: Array<{
      mode: string;
      aspect: string;
      imageSize: string;
      imageCount: number;
      images: string[];
      refs: string[];
    }>;
  };

describe('OpenAI-compatible images API, with the official openai client', () => {
  let t: TestApp;
  let apiKey: string;
  let email: string;
  let client: OpenAI;

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey, email } = await t.createAccount(undefined, { password: PASSWORD }));
    client = clientOf(t, apiKey);
  });
  after(() => t?.close());

  /** The website's saved works of the account (signed in with its session, as the browser is). */
  async function savedWorks() {
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: t.baseUrl },
      payload: { email, password: PASSWORD },
    });
    const works = await t.app.inject({
      method: 'GET',
      url: '/web/api/works',
      headers: { cookie: sessionCookieOf(signIn) },
    });
    return works.json().items as Array<{ source: string; tasks: Array<{ imageUrl?: string }> }>;
  }

  test('models: OpenAI’s list with the catalog fields; /api/v1/models answers the same without the aliases', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      assert.equal(model.object, 'model');
      assert.equal(typeof model.created, 'number');
      ids.push(model.id);
    }
    assert.deepEqual(ids.slice(0, 4), ['base-image-2', 'pro', 'flash2', 'flash']);
    const openAi = await get(t, apiKey, '/v1/models');
    const models = openAi.data.filter((model: { alias_of?: string }) => model.alias_of === undefined);
    assert.deepEqual(await get(t, apiKey, '/api/v1/models'), { ...openAi, data: models });
    assert.equal(openAi.object, 'list');
    assert.equal(openAi.default_model, 'base-image-2');
    assert.deepEqual(openAi.data[0], {
      id: 'base-image-2',
      object: 'model',
      created: 0,
      owned_by: 'local',
      name: 'Base Image 2',
      modes: ['text', 'edit'],
      aspects: ['1:1', '2:3', '3:2', '3:4', '4:3', '9:16', '16:9', '21:9', '4:5', '5:4'],
      sizes: ['1K', '2K', '4K'],
      maxCount: 4,
      maxReferences: 4,
      masks: true,
      seeds: true, // issue 45; and (issue 41) no qualities, costs 0, no lifecycle on the offline renderer
      qualities: [],
      defaultQuality: null,
      price: {
        currency: 'USD',
        published: true,
        asOf: null,
        source: null,
        perImage: { '1K': 0, '2K': 0, '4K': 0 },
        maxPerImage: { '1K': 0, '2K': 0, '4K': 0 },
        maxPerImageByQuality: {},
        perMillionTokens: null,
        maxTokensPerReference: null,
      },
      lifecycle: { released: null, deprecated: null, shutdown: null, replacement: null },
    });
  });

  test('generate n: 2 answers two stable URLs, recorded in history, saved works and the library', async () => {
    const before = (await historyOf(t, apiKey)).total;
    const response = await client.images.generate({ model: 'pro', prompt: 'two lighthouses', n: 2 });
    assert.equal(typeof response.created, 'number');
    assert.equal(response.data?.length, 2);
    for (const image of response.data ?? []) {
      assert.match(image.url ?? '', new RegExp(`^${t.baseUrl}/files/results/`));
      // No response_format: b64_json comes too (test/api/openai-clients.test.ts checks its bytes).
      const file = await fetch(image.url ?? '');
      assert.equal(file.status, 200);
      assert.deepEqual(
        await sharp(Buffer.from(await file.arrayBuffer()))
          .metadata()
          .then((m) => [m.width, m.height]),
        [1024, 1024],
      );
    }
    const history = await historyOf(t, apiKey);
    assert.equal(history.total, before + 1);
    assert.deepEqual(
      history.items[0]?.images,
      response.data?.map((image) => image.url),
    );
    assert.equal(history.items[0]?.imageCount, 2);
    const [work] = await savedWorks();
    assert.equal(work?.source, 'api', 'labelled like an API generation');
    assert.deepEqual(
      work?.tasks.map((task) => task.imageUrl),
      response.data?.map((image) => image.url),
    );
    const results = await get(t, apiKey, '/api/v1/assets?kind=result');
    for (const image of response.data ?? [])
      assert.ok(
        results.items.some((asset: { url: string }) => asset.url === image.url),
        'in the library',
      );
  });

  test('b64_json at a landscape size: the bytes of a 3:2 image at 1K', async () => {
    const response = await client.images.generate({
      prompt: 'a wide meadow',
      size: '1536x1024',
      response_format: 'b64_json',
    });
    const [image] = response.data ?? [];
    assert.equal(image?.url, undefined);
    const meta = await sharp(Buffer.from(image?.b64_json ?? '', 'base64')).metadata();
    assert.deepEqual([meta.width, meta.height, meta.format], [1248, 832, 'png']);
    assert.equal(response.output_format, 'png');
    const [item] = (await historyOf(t, apiKey)).items;
    assert.deepEqual([item?.aspect, item?.imageSize], ['3:2', '1K']);
  });

  test('edit with one image: the upload is checked and kept, the result answered', async () => {
    const png = await makePng(96, 64);
    const response = await client.images.edit({
      image: await toFile(png, 'photo.png', { type: 'image/png' }),
      prompt: 'make it night',
      size: '1024x1024',
    });
    assert.equal(response.data?.length, 1);
    const [item] = (await historyOf(t, apiKey)).items;
    assert.equal(item?.mode, 'edit');
    assert.equal(item?.refs.length, 1);
    const uploads = await get(t, apiKey, '/api/v1/assets?kind=upload');
    assert.ok(uploads.items.some((asset: { url: string }) => asset.url === item?.refs[0]));
  });

  test('an edit without size (or size auto) keeps the reference’s shape; a named size wins', async () => {
    const wide = await toFile(await makePng(96, 64), 'wide.png', { type: 'image/png' });
    await client.images.edit({ image: wide, prompt: 'keep the shape' });
    assert.equal((await historyOf(t, apiKey)).items[0]?.aspect, '3:2');
    const tall = await toFile(await makePng(64, 96), 'tall.png', { type: 'image/png' });
    await client.images.edit({ image: tall, prompt: 'keep the shape', size: 'auto' });
    assert.equal((await historyOf(t, apiKey)).items[0]?.aspect, '2:3');
    await client.images.edit({ image: tall, prompt: 'square it', size: '1024x1024' });
    assert.equal((await historyOf(t, apiKey)).items[0]?.aspect, '1:1');
  });

  test('two images on a model without fusion, a mask, or a file that is no image: 4xx naming the field', async () => {
    const image = await toFile(await makePng(), 'a.png', { type: 'image/png' });
    const two = await rejection(
      client.images.edit({ image: [image, await toFile(await makePng(32, 32), 'b.png')], prompt: 'blend' }),
    );
    assertOpenAiError(two, 400, 'image');
    assert.match(two.message, /fusion/);
    const mask = await rejection(
      client.images.edit({ image, mask: await toFile(await makePng(), 'm.png'), prompt: 'fill' }),
    );
    assertOpenAiError(mask, 400, 'mask');
    const text = await rejection(
      client.images.edit({ image: await toFile(Buffer.from('hello'), 'x.png'), prompt: 'x' }),
    );
    assertOpenAiError(text, 415, null);
    assert.match(text.message, /^415 image\[0\]: /);
  });

  test('a bad size, a bad n, an unknown model, streaming several images: 400/404 with param', async () => {
    assertOpenAiError(await rejection(client.images.generate({ prompt: 'x', size: '100x900' })), 400, 'size');
    assertOpenAiError(await rejection(client.images.generate({ prompt: 'x', size: 'huge' })), 400, 'size');
    assertOpenAiError(await rejection(client.images.generate({ prompt: 'x', n: 5 })), 400, 'n');
    assertOpenAiError(
      await rejection(client.images.generate({ prompt: 'x', n: 'two' as unknown as number })),
      400,
      'n',
    );
    assertOpenAiError(await rejection(client.images.generate({ prompt: '  ' })), 400, 'prompt');
    const unknown = await rejection(client.images.generate({ prompt: 'x', model: 'no-such-model' }));
    assertOpenAiError(unknown, 404, 'model');
    assert.equal(unknown.code, 'model_not_found');
    assert.ok(unknown instanceof OpenAI.NotFoundError);
    const stream = await rejection(
      client.images.generate({ prompt: 'x', stream: true, n: 2 }).then(async (events) => {
        for await (const _ of events) break;
      }),
    );
    // A stream carries one image (test/api/openai-stream.test.ts streams one).
    assertOpenAiError(stream, 400, 'n');
  });

  test('a wrong or missing key: AuthenticationError in OpenAI’s shape; /api/v1 keeps the spec’s', async () => {
    const wrong = await rejection(clientOf(t, 'atl_wrong').images.generate({ prompt: 'x' }));
    assert.ok(wrong instanceof OpenAI.AuthenticationError);
    assertOpenAiError(wrong, 401, null);
    assert.equal(wrong.code, 'invalid_api_key');
    const models = await rejection(clientOf(t, 'atl_wrong').models.list());
    assert.ok(models instanceof OpenAI.AuthenticationError);
    const missing = await fetch(`${t.baseUrl}/v1/images/generations`, { method: 'POST' });
    assert.equal(missing.status, 401);
    assert.equal((await missing.json()).error.code, 'unauthorized');
    const spec = await fetch(`${t.baseUrl}/api/v1/models`, { headers: bearer('atl_wrong') });
    assert.deepEqual(await spec.json(), { error: { type: 'invalid_api_key', message: 'Invalid API key' } });
  });

  test('a [[fail]] prompt is an error with the task’s message, not retried, not an empty 200', async () => {
    const before = (await historyOf(t, apiKey)).total;
    const failed = await rejection(client.images.generate({ prompt: 'doomed [[fail]]', n: 2 }));
    assertOpenAiError(failed, 502, null);
    assert.equal(failed.code, 'generation_failed');
    assert.match(failed.message, /the local renderer refused the prompt/);
    assert.equal(failed.headers?.get('x-should-retry'), 'false');
    // Default retries (2) are on: x-should-retry: false kept the client from submitting again.
    assert.equal((await historyOf(t, apiKey)).total, before + 1);
  });

  test('Idempotency-Key: a repeat replays the first answer and submits nothing', async () => {
    const before = (await historyOf(t, apiKey)).total;
    const options = { headers: { 'Idempotency-Key': `openai-${Date.now()}` } };
    const first = await client.images.generate({ prompt: 'once', n: 1 }, options);
    const again = await client.images.generate({ prompt: 'once', n: 1 }, options).withResponse();
    assert.deepEqual(again.data, first);
    assert.equal(again.response.headers.get('idempotent-replayed'), 'true');
    assert.equal((await historyOf(t, apiKey)).total, before + 1);
    const other = await rejection(client.images.generate({ prompt: 'twice', n: 1 }, options));
    assertOpenAiError(other, 422, null);
    assert.equal(other.code, 'idempotency_mismatch');
  });

  test('the other /v1 paths stay aliases of /api/v1 (the spec’s /v1/tasks/{id})', async () => {
    const generated = await fetch(`${t.baseUrl}/v1/generate`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'alias', imageSize: '1K' }),
    });
    const [id] = (await generated.json()).task_ids as string[];
    const record = await get(t, apiKey, `/v1/tasks/${id}`);
    assert.equal(record.task_id, id);
    const missing = await fetch(`${t.baseUrl}/v1/tasks/nope`, { headers: bearer(apiKey) });
    assert.deepEqual(await missing.json(), { error: { type: 'not_found', message: 'Task not found' } });
  });
});

describe('OpenAI-compatible edits on a catalog with fusion', () => {
  let t: TestApp;
  let client: OpenAI;
  let apiKey: string;
  let catalogDir: string;

  before(async () => {
    catalogDir = await mkdtemp(join(tmpdir(), 'atelier-fusion-catalog-'));
    const path = join(catalogDir, 'catalog.json');
    const [base, ...rest] = DEFAULT_CATALOG.models;
    await writeFile(
      path,
      JSON.stringify({ models: [{ ...base, modes: ['text', 'edit', 'fusion'] }, ...rest] }),
    );
    t = await createTestApp({ listen: true, env: { ATELIER_CATALOG: path } });
    ({ apiKey } = await t.createAccount());
    client = clientOf(t, apiKey);
  });
  after(async () => {
    await t?.close();
    await rm(catalogDir, { recursive: true, force: true });
  });

  test('two images blend into one result (fusion)', async () => {
    const image = [
      await toFile(await makePng(64, 64, { r: 250, g: 0, b: 0 }), 'red.png', { type: 'image/png' }),
      await toFile(await makePng(64, 64, { r: 0, g: 0, b: 250 }), 'blue.png', { type: 'image/png' }),
    ];
    const response = await client.images.edit({ image, prompt: 'blend them', response_format: 'url' });
    assert.equal(response.data?.length, 1);
    const [item] = (await historyOf(t, apiKey)).items;
    assert.equal(item?.mode, 'fusion');
    assert.equal(item?.refs.length, 2);
  });
});

describe('OpenAI-compatible wait ceiling', () => {
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    // Renders take a minute; the request waits 400 ms.
    t = await createTestApp({
      listen: true,
      env: { ATELIER_OPENAI_WAIT_MS: '400', ATELIER_LOCAL_LATENCY_MS: '60000' },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(() => t?.close());

  test('a wait past the ceiling is an error that names the task ids to poll', async () => {
    const error = await rejection(clientOf(t, apiKey).images.generate({ prompt: 'slow', n: 2 }));
    assertOpenAiError(error, 504, null);
    assert.equal(error.code, 'wait_timeout');
    const ids = /task ids: ([^)\s]+)/.exec(error.message)?.[1]?.split(',') ?? [];
    assert.equal(ids.length, 2);
    const batch = await get(t, apiKey, `/api/v1/tasks?ids=${ids.join(',')}`);
    assert.deepEqual(
      batch.tasks.map((task: { task_id: string; status: string }) => [
        task.task_id,
        task.status !== 'failed',
      ]),
      ids.map((id) => [id, true]),
    );
  });
});

describe('OpenAI-compatible answer when some images of n fail', () => {
  let t: TestApp;

  before(async () => {
    // Slow enough that a task can be canceled while the request waits.
    t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '3000' } });
  });
  after(() => t?.close());

  test('the images that completed are answered; the failed one is left out', async () => {
    const { apiKey, id: accountId } = await t.createAccount();
    // The first change of one of the account's tasks names a task to cancel (no sleeping).
    const firstTask = new Promise<string>((resolve) => {
      const unsubscribe = t.core.taskEvents.subscribe(accountId, {
        onChange: (change) => {
          unsubscribe();
          resolve(change.record.task_id);
        },
      });
    });
    const answer = clientOf(t, apiKey).images.generate({ prompt: 'two, one canceled', n: 2 });
    const canceled = await fetch(`${t.baseUrl}/api/v1/tasks/${await firstTask}/cancel`, {
      method: 'POST',
      headers: bearer(apiKey),
    });
    assert.equal(canceled.status, 200);
    const response = await answer;
    assert.equal(response.data?.length, 1);
    const [item] = (await historyOf(t, apiKey)).items;
    assert.deepEqual(item?.images, [response.data?.[0]?.url]);
  });
});
