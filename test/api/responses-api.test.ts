import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI, { APIError } from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import sharp from 'sharp';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * The Responses API's image tool (issue 44), driven by the official `openai` SDK and the AI SDK's
 * Responses provider against the app on loopback, the offline local renderer upstream: one image
 * per response, multi-turn edits with previous_response_id (lineage in history), streaming with
 * partial images, stored responses (retrieve, delete, another account's 404), background mode.
 */

type ImageCall = { type: 'image_generation_call'; id: string; result: string | null; status: string };

const imageCalls = (output: ReadonlyArray<{ type: string }>) =>
  output.filter((item): item is ImageCall => item.type === 'image_generation_call');

const pngMeta = (b64: string) => sharp(Buffer.from(b64, 'base64')).metadata();

describe('OpenAI Responses API with the image_generation tool', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let client: OpenAI;

  const historyItems = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=50', headers: bearer(apiKey) })).json()
      .items as Array<Record<string, unknown>>;
  const taskOf = (call: ImageCall) => `tsk_${call.id.slice('ig_'.length)}`;
  /** The history item (work) whose image is the task's. */
  async function workOf(taskId: string) {
    const record = (
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers: bearer(apiKey) })
    ).json() as { imageUrl: string };
    const item = (await historyItems()).find((i) => (i.images as string[]).includes(record.imageUrl));
    assert.ok(item, `task ${taskId} is a work in history`);
    return item;
  }

  before(async () => {
    // A 1.5 s render: the partial frames (at 1/3 and 2/3) are stored while it runs.
    t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '1500' } });
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(() => t?.close());

  test('responses.create: a chat model name, a string input → one completed image_generation_call', async () => {
    const response = await client.responses.create({
      model: 'gpt-5',
      input: 'a lighthouse at dawn',
      tools: [{ type: 'image_generation', size: '1024x1024', quality: 'low' }],
    });
    assert.match(response.id, /^resp_/);
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.equal(response.model, 'base-image-2', 'a chat model name uses the catalog default');
    const [call] = imageCalls(response.output);
    assert.ok(call);
    assert.match(call.id, /^ig_/);
    assert.equal(call.status, 'completed');
    const meta = await pngMeta(call.result ?? '');
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 1024, 1024]);
    const item = response.output[0] as unknown as Record<string, unknown>;
    assert.equal(item.revised_prompt, 'a lighthouse at dawn');
    assert.equal(item.size, '1024x1024');
    assert.equal(item.quality, 'low');
    assert.equal(typeof response.usage?.total_tokens, 'number');
    assert.equal(response.output_text, '', 'the SDK reads no text: there is no message item');
  });

  test('the tool’s model is used when the request’s model is a chat model; an unknown tool model is a 404', async () => {
    const response = await client.responses.create({
      model: 'gpt-4.1',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'a red kite' }] }],
      tools: [{ type: 'image_generation', model: 'gpt-image-1-mini' }],
    });
    assert.equal(response.model, 'flash2');
    // The tool's model wins over a catalog model named as the request's; that one counts without it.
    const both = await client.responses.create({
      model: 'pro',
      input: 'a red kite',
      tools: [{ type: 'image_generation', model: 'gpt-image-1-mini' }],
    });
    assert.equal(both.model, 'flash2');
    const own = await client.responses.create({
      model: 'pro',
      input: 'a kite',
      tools: [{ type: 'image_generation' }],
    });
    assert.equal(own.model, 'pro');
    const refused = await client.responses
      .create({ model: 'gpt-5', input: 'x', tools: [{ type: 'image_generation', model: 'no-such-model' }] })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof APIError);
    assert.equal(refused.status, 404);
    assert.equal((refused.error as { code?: string }).code, 'model_not_found');
    const noTool = await client.responses.create({ model: 'gpt-5', input: 'x' }).catch((e: unknown) => e);
    assert.ok(noTool instanceof APIError && noTool.status === 400);
    assert.equal((noTool.error as { param?: string }).param, 'tools');
  });

  test('three turns with previous_response_id: each image refines the last, history names each parent', async () => {
    const tools = [{ type: 'image_generation' as const }];
    const first = await client.responses.create({ model: 'gpt-5', input: 'a red bicycle', tools });
    const second = await client.responses.create({
      model: 'gpt-5',
      previous_response_id: first.id,
      input: 'make the wall blue',
      tools,
    });
    const third = await client.responses.create({
      model: 'gpt-5',
      previous_response_id: second.id,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'add a cat on the saddle' }] }],
      tools,
    });
    assert.equal(second.previous_response_id, first.id);
    assert.equal(third.previous_response_id, second.id);
    const [a, b, c] = [first, second, third].map((r) => imageCalls(r.output)[0]);
    assert.ok(a && b && c);
    assert.equal((b as unknown as { action: string }).action, 'edit');
    const [workA, workB, workC] = [await workOf(taskOf(a)), await workOf(taskOf(b)), await workOf(taskOf(c))];
    assert.equal(workB?.parentTaskId, taskOf(a));
    assert.equal(workB?.parentId, workA?.id);
    assert.equal(workB?.instruction, 'make the wall blue');
    assert.equal(workC?.parentTaskId, taskOf(b));
    assert.equal(workC?.parentId, workB?.id);
    const versions = await t.app.inject({
      method: 'GET',
      url: `/api/v1/history/${String(workC?.id)}/versions`,
      headers: bearer(apiKey),
    });
    assert.equal(versions.statusCode, 200, versions.body);
    const chain = versions.json().versions as Array<{ id: string; parentId?: string }>;
    assert.deepEqual(
      chain.map((v) => [v.id, v.parentId]),
      [
        [workA?.id, undefined],
        [workB?.id, workA?.id],
        [workC?.id, workB?.id],
      ],
    );

    // An image_generation_call id in input names the image to refine (here the first, a branch).
    const branch = await client.responses.create({
      model: 'gpt-5',
      input: [
        { type: 'image_generation_call', id: a.id, status: 'completed', result: null },
        { role: 'user', content: [{ type: 'input_text', text: 'black and white' }] },
      ],
      tools,
    });
    const d = imageCalls(branch.output)[0];
    assert.ok(d);
    assert.equal((await workOf(taskOf(d)))?.parentTaskId, taskOf(a));
    // Another account cannot continue this account's response.
    const foreign = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: otherKey, maxRetries: 0 });
    const refused = await foreign.responses
      .create({ model: 'gpt-5', previous_response_id: first.id, input: 'x', tools })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof APIError && refused.status === 400);
    assert.equal((refused.error as { param?: string }).param, 'previous_response_id');
  });

  test('an input_image (data URL) makes an edit of that image', async () => {
    const png = (await makePng(640, 480)).toString('base64');
    const response = await client.responses.create({
      model: 'gpt-5',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'make it night' },
            { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
          ],
        },
      ],
      tools: [{ type: 'image_generation' }],
    });
    const [call] = imageCalls(response.output);
    assert.equal((call as unknown as { action: string }).action, 'edit');
    const meta = await pngMeta(call?.result ?? '');
    assert.ok(
      meta.width && meta.height && meta.width > meta.height,
      'the reference’s landscape shape is kept',
    );
  });

  test('stream: true with partial_images 2: the response.* events in order, two partial images, then completed', async () => {
    const stream = await client.responses.create({
      model: 'gpt-5',
      input: 'a lighthouse at dusk',
      stream: true,
      tools: [{ type: 'image_generation', partial_images: 2 }],
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.image_generation_call.in_progress',
        'response.image_generation_call.generating',
        'response.image_generation_call.partial_image',
        'response.image_generation_call.partial_image',
        'response.image_generation_call.completed',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, index) => index),
    );
    const partials = events.filter((e) => e.type === 'response.image_generation_call.partial_image');
    assert.deepEqual(
      partials.map((e) => e.partial_image_index),
      [0, 1],
    );
    for (const partial of partials) assert.equal((await pngMeta(partial.partial_image_b64)).format, 'png');
    const done = events.at(-1);
    assert.ok(done?.type === 'response.completed');
    const [call] = imageCalls(done.response.output);
    assert.ok(call?.result);
    assert.equal(partials[0]?.item_id, call.id);
    // The streamed response is stored: GET answers it, and it can be continued.
    const stored = await client.responses.retrieve(done.response.id);
    assert.equal(imageCalls(stored.output)[0]?.result, call.result);
  });

  test('retrieve and delete: another account’s id is a 404 in OpenAI’s shape; a deleted response is gone', async () => {
    const made = await client.responses.create({
      model: 'gpt-5',
      input: 'a teapot',
      tools: [{ type: 'image_generation' }],
    });
    const read = await client.responses.retrieve(made.id);
    assert.equal(read.status, 'completed');
    assert.equal(imageCalls(read.output)[0]?.result, imageCalls(made.output)[0]?.result);
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/v1/responses/${made.id}`,
      headers: bearer(otherKey),
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error.type, 'invalid_request_error');
    const foreignDelete = await t.app.inject({
      method: 'DELETE',
      url: `/v1/responses/${made.id}`,
      headers: bearer(otherKey),
    });
    assert.equal(foreignDelete.statusCode, 404);
    const deleted = await client.responses.delete(made.id);
    assert.deepEqual(deleted, { id: made.id, object: 'response', deleted: true });
    const raw = await t.app.inject({
      method: 'DELETE',
      url: `/v1/responses/${made.id}`,
      headers: bearer(apiKey),
    });
    assert.equal(raw.statusCode, 404, 'deleted once');
    const gone = await client.responses.retrieve(made.id).catch((e: unknown) => e);
    assert.ok(gone instanceof APIError && gone.status === 404);
    // store: false is not kept.
    const unstored = await client.responses.create({
      model: 'gpt-5',
      input: 'a cup',
      store: false,
      tools: [{ type: 'image_generation' }],
    });
    assert.equal((unstored as unknown as { store: boolean }).store, false);
    const notKept = await client.responses.retrieve(unstored.id).catch((e: unknown) => e);
    assert.ok(notKept instanceof APIError && notKept.status === 404);
  });

  test('background: true answers queued at once; GET shows the image once its task ended', async () => {
    const queued = await client.responses.create({
      model: 'gpt-5',
      input: 'a windmill',
      background: true,
      tools: [{ type: 'image_generation' }],
    });
    assert.ok(['queued', 'in_progress'].includes(String(queued.status)), String(queued.status));
    assert.equal(queued.background, true);
    const [pending] = imageCalls(queued.output);
    assert.ok(pending);
    assert.equal(pending.result, null);
    const taskId = taskOf(pending);
    // Long-poll the task until it has ended.
    for (let i = 0; i < 20; i++) {
      const task = await t.app.inject({
        method: 'GET',
        url: `/api/v1/tasks/${taskId}?wait=30`,
        headers: bearer(apiKey),
      });
      if (['completed', 'failed'].includes(task.json().status)) break;
    }
    const done = await client.responses.retrieve(queued.id);
    assert.equal(done.status, 'completed');
    assert.ok(imageCalls(done.output)[0]?.result);
  });

  test('a failed image answers status failed with OpenAI’s error; Idempotency-Key replays the same response', async () => {
    const failed = await client.responses.create({
      model: 'gpt-5',
      input: '[[fail]]',
      tools: [{ type: 'image_generation' }],
    });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'server_error');
    assert.match(failed.error?.message ?? '', /task ids: tsk_/);
    assert.equal(imageCalls(failed.output)[0]?.status, 'failed');
    assert.equal((await client.responses.retrieve(failed.id)).status, 'failed');
    // Continuing a failed image is refused: it has no image to refine.
    const refine = await client.responses
      .create({
        model: 'gpt-5',
        previous_response_id: failed.id,
        input: 'x',
        tools: [{ type: 'image_generation' }],
      })
      .catch((e: unknown) => e);
    assert.ok(refine instanceof APIError && refine.status === 400);

    const body = { model: 'gpt-5', input: 'an owl', tools: [{ type: 'image_generation' as const }] };
    const options = { headers: { 'Idempotency-Key': `resp-${Date.now()}` } };
    const once = await client.responses.create(body, options);
    const again = await client.responses.create(body, options);
    assert.equal(again.id, once.id);
    assert.equal(imageCalls(again.output)[0]?.id, imageCalls(once.output)[0]?.id);
  });

  test('the AI SDK’s Responses provider with openai.tools.imageGeneration: the image comes back', async () => {
    const openai = createOpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey });
    const result = await generateText({
      model: openai.responses('gpt-5'),
      prompt: 'a paper boat on a pond',
      // The provider's tool type and `ai`'s differ by their provider-utils copies; the object is the same.
      tools: {
        image_generation: openai.tools.imageGeneration({ outputFormat: 'png', size: '1024x1024' }) as never,
      },
    });
    const toolResult = result.toolResults.find((r) => r.toolName === 'image_generation');
    assert.ok(toolResult, JSON.stringify(result.content.map((c) => c.type)));
    const output = toolResult.output as { result: string };
    const meta = await pngMeta(output.result);
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 1024, 1024]);
    // The next turn continues the conversation by the provider's previousResponseId: an edit of it.
    const responseId = String(result.providerMetadata?.openai?.responseId);
    assert.match(responseId, /^resp_/);
    const next = await generateText({
      model: openai.responses('gpt-5'),
      prompt: 'make the pond frozen',
      tools: { image_generation: openai.tools.imageGeneration({ outputFormat: 'png' }) as never },
      providerOptions: { openai: { previousResponseId: responseId } },
    });
    const nextResult = next.toolResults.find((r) => r.toolName === 'image_generation');
    assert.ok(nextResult);
    const stored = await client.responses.retrieve(String(next.providerMetadata?.openai?.responseId));
    const [first, second] = [toolResult.toolCallId, nextResult.toolCallId];
    assert.equal(imageCalls(stored.output)[0]?.id, second);
    const work = await workOf(`tsk_${second.slice('ig_'.length)}`);
    assert.equal(work.parentTaskId, `tsk_${first.slice('ig_'.length)}`);
    assert.equal(work.instruction, 'make the pond frozen');
  });
});
