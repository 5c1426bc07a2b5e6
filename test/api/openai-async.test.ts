import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import type { OpenAiImageTask } from '../../src/base/contract/openai.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { startReceiver, verify, waitFor } from '../support/scripted-webhook-receiver.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * The asynchronous mode of the OpenAI image routes (issue 29; new-api #4711): `Prefer:
 * respond-async` or `async: true` answers 202 at once with the task envelope, a GET answers the
 * images once done; the same tasks, webhooks and Idempotency-Key as /api/v1. Synchronous stays
 * the default. Driven with the real `openai` SDK where it can send the request.
 */

const ASYNC = { headers: { Prefer: 'respond-async' } };

describe('OpenAI routes, asynchronous mode', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let apiKey: string;
  let client: OpenAI;

  before(async () => {
    receiver = await startReceiver();
    // The engine starts in the first test, once it has seen a request queued.
    t = await createTestApp({
      listen: true,
      startEngine: false,
      env: { ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}` },
    });
    ({ apiKey } = await t.createAccount());
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(async () => {
    await t?.close();
    await receiver?.server.close();
  });

  /** GET of an id (the SDK's generic get), long-polling until every task ended. */
  const read = (id: string, path = 'generations', wait = 60) =>
    client.get<OpenAiImageTask>(`/images/${path}/${id}`, { query: { wait } });

  test('Prefer: respond-async answers 202 at once with the envelope, Location and Preference-Applied; the GET answers queued, then the synchronous body', async () => {
    const { data: accepted, response } = await client.images
      .generate({ model: 'pro', prompt: 'a lighthouse', n: 2 }, ASYNC)
      .withResponse();
    // The SDK parses a 202's JSON like a 200's: `images.generate` returns the envelope as is.
    const task = accepted as unknown as OpenAiImageTask;
    assert.equal(response.status, 202);
    assert.equal(response.headers.get('preference-applied'), 'respond-async');
    assert.equal(response.headers.get('location'), `/v1/images/generations/${task.id}`);
    assert.match(task.id, /^imgtask_[\w-]+\.[\w-]{22}$/);
    assert.equal(task.object, 'image.generation.task');
    assert.equal(task.status, 'queued');
    assert.equal(task.task_ids.length, 2);
    assert.deepEqual(task.data, []);

    const queued = await read(task.id, 'generations', 0);
    assert.equal(queued.status, 'queued');
    assert.deepEqual(
      queued.tasks?.map((record) => [record.task_id, record.status]),
      task.task_ids.map((id) => [id, 'queued']),
    );

    t.core.engine.start();
    t.core.webhooks.start();
    const done = await read(task.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.id, task.id);
    assert.equal(done.created, task.created);
    assert.deepEqual(done.task_ids, task.task_ids);
    assert.equal(done.data.length, 2);
    // No response_format: what the synchronous answer gives, b64_json and url of the same bytes.
    const first = done.data[0];
    const file = Buffer.from(await (await fetch(first?.url ?? '')).arrayBuffer());
    assert.ok(file.equals(Buffer.from(first?.b64_json ?? '', 'base64')));
    assert.equal(done.size, '1024x1024');
    assert.equal(done.output_format, 'png');
    assert.deepEqual(
      done.tasks?.map((record) => record.status),
      ['completed', 'completed'],
    );
  });

  test('async: true in the body, with callback_url: the signed webhook of /api/v1/generate, and response_format kept for the GET', async () => {
    const secret = (
      (await (
        await fetch(`${t.baseUrl}/api/v1/user/webhook-secret`, { headers: bearer(apiKey) })
      ).json()) as { secret: string }
    ).secret;
    const callback = receiver.answer('/hooks/openai-async');
    const { data, response } = await client.images
      .generate({
        model: 'pro',
        prompt: 'a fox',
        response_format: 'url',
        async: true,
        callback_url: callback,
      } as OpenAI.ImageGenerateParamsNonStreaming)
      .withResponse();
    const task = data as unknown as OpenAiImageTask;
    assert.equal(response.status, 202);
    assert.equal(response.headers.get('preference-applied'), null, 'the header did not ask');
    const delivered = await waitFor('webhook', async () => receiver.at('/hooks/openai-async')[0]);
    const payload = verify(secret, delivered);
    assert.equal(payload.data.task_id, task.task_ids[0]);
    assert.equal(payload.data.status, 'completed');
    const done = await read(task.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(Object.keys(done.data[0] ?? {}), ['url']);
    assert.equal(done.data[0]?.url, payload.data.imageUrl);
  });

  test('a callback_url the webhook policy refuses is a 400 naming callback_url', async () => {
    const error = await client.images
      .generate(
        { prompt: 'x', callback_url: 'http://10.0.0.7/hook' } as OpenAI.ImageGenerateParamsNonStreaming,
        ASYNC,
      )
      .then(
        () => assert.fail('should be refused'),
        (thrown: unknown) => thrown,
      );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.param, 'callback_url');
  });

  test('Idempotency-Key: a repeat replays the same 202 answer and submits nothing', async () => {
    const send = () =>
      fetch(`${t.baseUrl}/v1/images/generations`, {
        method: 'POST',
        headers: {
          ...bearer(apiKey),
          'content-type': 'application/json',
          prefer: 'respond-async',
          'idempotency-key': 'openai-async-1',
        },
        body: JSON.stringify({ model: 'pro', prompt: 'once only' }),
      });
    const first = await send();
    assert.equal(first.status, 202, await first.clone().text());
    const again = await send();
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), await first.json());
  });

  test("an edit (multipart, the SDK's images.edit) answers image.edit.task; its GET answers the edit", async () => {
    const image = await toFile(await makePng(640, 480), 'a.png', { type: 'image/png' });
    const { data, response } = await client.images
      .edit({ model: 'pro', image, prompt: 'make it blue', response_format: 'b64_json' }, ASYNC)
      .withResponse();
    const task = data as unknown as OpenAiImageTask;
    assert.equal(response.status, 202);
    assert.equal(task.object, 'image.edit.task');
    assert.equal(response.headers.get('location'), `/v1/images/edits/${task.id}`);
    const done = await read(task.id, 'edits');
    assert.equal(done.status, 'completed');
    assert.deepEqual(Object.keys(done.data[0] ?? {}), ['b64_json']);
    // No size: the edit keeps the image's shape (4:3 at 1K), as the synchronous edit does.
    assert.equal(done.size, '1184x880');
  });

  test('the form field async=true asks it too (multipart)', async () => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(await makePng())], { type: 'image/png' }), 'a.png');
    form.append('prompt', 'sepia');
    form.append('model', 'pro');
    form.append('async', 'true');
    const response = await fetch(`${t.baseUrl}/v1/images/edits`, {
      method: 'POST',
      headers: bearer(apiKey),
      body: form,
    });
    assert.equal(response.status, 202, await response.clone().text());
    const task = (await response.json()) as OpenAiImageTask;
    assert.equal((await read(task.id, 'edits')).status, 'completed');
  });

  test("every image failed: the GET answers failed with OpenAI's error object (what the synchronous 502 says)", async () => {
    const accepted = (await client.images.generate(
      { model: 'pro', prompt: 'no [[fail]]' },
      ASYNC,
    )) as unknown as OpenAiImageTask;
    const done = await read(accepted.id);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.data, []);
    assert.equal(done.error?.code, 'generation_failed');
    assert.equal(done.error?.type, 'server_error');
    assert.match(done.error?.message ?? '', /^Image generation failed: .*\[\[fail\]\]/);
  });

  test("another account's id, or one Atelier did not make, is a 404 in OpenAI's shape", async () => {
    const mine = (await client.images.generate(
      { model: 'pro', prompt: 'private' },
      ASYNC,
    )) as unknown as OpenAiImageTask;
    const other = await t.createAccount();
    const theirs = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: other.apiKey, maxRetries: 0 });
    // An id made up by the caller from its own request's contents (not sealed, or the seal altered):
    // Atelier reads back only the ids it issued, to that account.
    const contents = mine.id.slice('imgtask_'.length).split('.')[0] ?? '';
    const fields = JSON.parse(Buffer.from(contents, 'base64url').toString('utf8')) as unknown[];
    const madeUp = `imgtask_${Buffer.from(JSON.stringify([1, 'g', fields[2], 'b64_json', ...fields.slice(4)])).toString('base64url')}`;
    for (const id of [madeUp, `${madeUp}.${mine.id.split('.')[1]}`]) {
      const error = await client.get(`/images/generations/${id}`).then(
        () => assert.fail('should be a 404'),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof OpenAI.NotFoundError, String(error));
    }
    for (const id of [mine.id, 'imgtask_bm90IGFuIGlk', 'tsk_123']) {
      const error = await theirs.get(`/images/generations/${id}`).then(
        () => assert.fail('should be a 404'),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof OpenAI.NotFoundError, String(error));
      assert.deepEqual([error.type, error.code], ['invalid_request_error', 'not_found']);
    }
  });

  test('without the header or the field, the request stays synchronous (200 with the images)', async () => {
    const { data, response } = await client.images
      .generate({ model: 'pro', prompt: 'sync', async: false } as OpenAI.ImageGenerateParamsNonStreaming, {
        headers: { Prefer: 'return=minimal' },
      })
      .withResponse();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('preference-applied'), null);
    assert.ok(data.data?.[0]?.b64_json);
    assert.equal((data as { status?: string }).status, undefined);
  });
});
