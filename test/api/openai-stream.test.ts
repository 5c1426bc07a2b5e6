import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { APIError, toFile } from 'openai';
import type { ImageGenStreamEvent } from 'openai/resources/images';
import sharp from 'sharp';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * `stream: true` on /v1/images (issue 29), consumed by the official `openai` SDK's stream iterator:
 * partial frames the local renderer really makes (coarser versions of the image), then the completed
 * event; and `usage` carried from the OpenAI upstream to the answers.
 */

/** Mean absolute difference of two same-sized images, per channel value. */
async function distance(a: string, b: string): Promise<number> {
  const raw = (b64: string) => sharp(Buffer.from(b64, 'base64')).removeAlpha().raw().toBuffer();
  const [x, y] = await Promise.all([raw(a), raw(b)]);
  assert.equal(x.length, y.length);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs((x[i] ?? 0) - (y[i] ?? 0));
  return sum / x.length;
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('OpenAI image streaming on the local renderer', () => {
  let t: TestApp;
  let client: OpenAI;
  let apiKey: string;

  before(async () => {
    // Polls every 200 ms over a 2 s render: the frames' times (1/3, 2/3) each see a poll.
    t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '2000' } });
    ({ apiKey } = await t.createAccount());
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(() => t?.close());

  test('generate with partial_images 2: two real partial frames, progressively finer, then the image', async () => {
    const stream = await client.images.generate({
      model: 'gpt-image-1',
      prompt: 'a lighthouse at dawn',
      size: '1024x1024',
      stream: true,
      partial_images: 2,
    });
    const events: ImageGenStreamEvent[] = await collect(stream);
    assert.deepEqual(
      events.map((event) => event.type),
      ['image_generation.partial_image', 'image_generation.partial_image', 'image_generation.completed'],
    );
    const [first, second, done] = events;
    assert.ok(
      first?.type === 'image_generation.partial_image' && second?.type === 'image_generation.partial_image',
    );
    assert.ok(done?.type === 'image_generation.completed');
    assert.deepEqual([first.partial_image_index, second.partial_image_index], [0, 1]);
    for (const event of events) {
      assert.equal(event.size, '1024x1024');
      assert.equal(event.output_format, 'png');
      assert.equal(event.background, 'opaque');
      assert.equal(event.quality, 'auto');
      assert.equal(typeof event.created_at, 'number');
      const meta = await sharp(Buffer.from(event.b64_json, 'base64')).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['png', 1024, 1024]);
    }
    // Real intermediate frames: each is the final image, coarser; the later one is nearer to it.
    const far = await distance(first.b64_json, done.b64_json);
    const near = await distance(second.b64_json, done.b64_json);
    assert.ok(near < far && near > 0, `frame 1 (${near}) nearer to the image than frame 0 (${far})`);
    // The local renderer reports no tokens: the event's required usage is zeros.
    assert.deepEqual(done.usage, {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      input_tokens_details: { image_tokens: 0, text_tokens: 0 },
    });
    // The frames went with the task.
    assert.deepEqual(await readdir(join(t.dataDir, 'blobs', 'partials')).catch(() => []), []);
  });

  test('edit with stream (multipart): image_edit.partial_image, then image_edit.completed', async () => {
    const image = await toFile(await makePng(640, 480), 'photo.png', { type: 'image/png' });
    const stream = await client.images.edit({
      model: 'pro',
      image,
      prompt: 'make it blue',
      stream: true,
      partial_images: 1,
      quality: 'high',
    });
    const events = await collect(stream);
    assert.deepEqual(
      events.map((event) => event.type),
      ['image_edit.partial_image', 'image_edit.completed'],
    );
    const done = events[1];
    assert.ok(done?.type === 'image_edit.completed');
    assert.equal(done.quality, 'high');
    assert.equal(done.size, '1184x880');
  });

  test('no partial_images: the completed event only, and no frame stored', async () => {
    const events = await collect(await client.images.generate({ model: 'pro', prompt: 'x', stream: true }));
    assert.deepEqual(
      events.map((event) => event.type),
      ['image_generation.completed'],
    );
    const rows = await t.core.resources.db
      .selectFrom('tasks')
      .select(['partial_images', 'partial_frames'])
      .execute();
    assert.ok(rows.some((row) => row.partial_images === 0 && row.partial_frames === 0));
  });

  test('a failure after the stream began is an error event: the SDK throws APIError', async () => {
    const stream = await client.images.generate({
      model: 'pro',
      prompt: 'refuse this [[fail]]',
      stream: true,
      partial_images: 1,
    });
    await assert.rejects(collect(stream), (error: unknown) => {
      assert.ok(error instanceof APIError);
      assert.match(error.message, /Image generation failed: .*\[\[fail\]\]/);
      return true;
    });
  });

  test('refusals before the stream: n > 1 names n, partial_images out of 0-3 names partial_images', async () => {
    const post = (body: object) =>
      fetch(`${t.baseUrl}/v1/images/generations`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'x', stream: true, ...body }),
      });
    const many = await post({ n: 2 });
    assert.equal(many.status, 400);
    assert.equal(((await many.json()) as { error: { param: string } }).error.param, 'n');
    const four = await post({ partial_images: 4 });
    assert.equal(four.status, 400);
    assert.equal(((await four.json()) as { error: { param: string } }).error.param, 'partial_images');
  });
});

describe('usage from the OpenAI upstream', () => {
  const UPSTREAM_KEY = 'sk-upstream-test';
  let t: TestApp;
  let client: OpenAI;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let catalogDir: string;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    catalogDir = await mkdtemp(join(tmpdir(), 'atelier-usage-catalog-'));
    const path = join(catalogDir, 'catalog.json');
    const upstream = { id: 'upstream', provider: 'openai', upstreamModel: 'gpt-image-1.5', modes: ['text'] };
    await writeFile(path, JSON.stringify({ models: [...DEFAULT_CATALOG.models, upstream] }));
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: path,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
      },
    });
    const { apiKey } = await t.createAccount();
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await rm(catalogDir, { recursive: true, force: true });
  });

  test('a synchronous answer carries the upstream usage, summed over its images', async () => {
    const response = await client.images.generate({ model: 'upstream', prompt: 'a fox', n: 2 });
    assert.equal(response.data?.length, 2);
    assert.deepEqual(response.usage, {
      input_tokens: 100,
      input_tokens_details: { text_tokens: 100, image_tokens: 0 },
      output_tokens: 8320,
      total_tokens: 8420,
    });
  });

  test('the completed stream event carries the upstream usage (no partial frames from this adapter)', async () => {
    const stream = await client.images.generate({
      model: 'upstream',
      prompt: 'a fox',
      stream: true,
      partial_images: 2,
    });
    const events = await collect(stream);
    assert.deepEqual(
      events.map((event) => event.type),
      ['image_generation.completed'],
    );
    const done = events[0];
    assert.ok(done?.type === 'image_generation.completed');
    assert.deepEqual(done.usage, {
      input_tokens: 50,
      input_tokens_details: { text_tokens: 50, image_tokens: 0 },
      output_tokens: 4160,
      total_tokens: 4210,
    });
  });

  test('an answer of the local renderer has no usage (never invented)', async () => {
    const response = await client.images.generate({ model: 'pro', prompt: 'a fox' });
    assert.equal(response.usage, undefined);
  });
});
