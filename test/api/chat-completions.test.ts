import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * POST /v1/chat/completions with image output (issue 44), driven by the clients apps use: the
 * `openai` SDK's chat.completions.create with OpenRouter's `modalities`, passing each assistant
 * message back as apps do, and the AI SDK's openai-compatible provider. One long-lived app.
 */

type Message = Record<string, unknown>;
type ChatAnswer = {
  id: string;
  object: string;
  model: string;
  choices: Array<{
    message: { role: string; content: string; images: Array<{ image_url: { url: string } }> };
  }>;
  usage: Record<string, number>;
};

describe('chat completions with image output', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let client: OpenAI;

  const historyItems = async (key = apiKey) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=50', headers: bearer(key) })).json()
      .items as Array<Record<string, unknown>>;
  const newest = async (key = apiKey) => (await historyItems(key))[0] ?? {};
  const chat = (body: Record<string, unknown>, c = client) =>
    c.chat.completions.create({
      model: 'flash2',
      modalities: ['image', 'text'],
      ...body,
    } as never) as Promise<unknown> as Promise<ChatAnswer>;
  /** Expects the client to raise an OpenAI error: its status, code and param. */
  async function refused(body: Record<string, unknown>, status: number, param: string | null, code?: string) {
    await assert.rejects(chat(body), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.equal(error.status, status, error.message);
      assert.equal(error.type, status === 404 || status === 400 ? 'invalid_request_error' : error.type);
      if (param !== null) assert.match(String(error.param), new RegExp(`^${param}`), error.message);
      if (code) assert.equal(error.code, code);
      return true;
    });
  }
  const dataUrl = async (color = { r: 30, g: 140, b: 220 }) =>
    `data:image/png;base64,${(await makePng(64, 48, color)).toString('base64')}`;

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
  });
  after(() => t?.close());

  test('openai SDK: three turns, each passing the previous assistant message back, make a chain of versions', async () => {
    const messages: Message[] = [{ role: 'user', content: 'a red bicycle against a white wall' }];
    const first = await chat({ messages, image_config: { aspect_ratio: '3:4' } });
    assert.equal(first.object, 'chat.completion');
    assert.match(first.id, /^chatcmpl-/);
    assert.equal(first.model, 'flash2');
    const message = first.choices[0]?.message;
    assert.equal(message?.role, 'assistant');
    assert.equal(typeof message?.content, 'string');
    assert.equal(message?.images.length, 1);
    assert.match(message?.images[0]?.image_url.url ?? '', /^data:image\/png;base64,iVBOR/);
    assert.deepEqual(Object.keys(first.usage).sort(), ['completion_tokens', 'prompt_tokens', 'total_tokens']);
    const one = await newest();
    assert.equal(one.aspect, '3:4');
    assert.equal(one.parentId ?? null, null);

    // Turn 2: the app sends the whole conversation back, the assistant message as it came.
    messages.push(message as unknown as Message, { role: 'user', content: 'make the wall blue' });
    const second = await chat({ messages });
    const two = await newest();
    assert.notEqual(two.id, one.id);
    assert.equal(two.parentId, one.id, 'the data URL of turn 1 is recognised as its work');
    assert.equal(two.instruction, 'make the wall blue');
    assert.equal(two.mode, 'edit');
    assert.deepEqual(two.refs, one.images, "the parent's image is the reference");

    // Turn 3: the assistant image now as Atelier's own URL in a content part (image_url_format url).
    messages.push(second.choices[0]?.message as unknown as Message, { role: 'user', content: 'add a cat' });
    const third = await chat({ messages, image_url_format: 'url' });
    const url = third.choices[0]?.message.images[0]?.image_url.url ?? '';
    assert.match(url, new RegExp(`^${t.baseUrl}/files/results/`));
    const three = await newest();
    assert.equal(three.parentId, two.id);
    assert.equal(three.instruction, 'add a cat');
    const served = await fetch(url);
    assert.equal(served.status, 200);

    const fourthMessages = [
      ...messages,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'here' },
          { type: 'image_url', image_url: { url } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'night time' }] },
    ];
    await chat({ messages: fourthMessages });
    const four = await newest();
    assert.equal(four.parentId, three.id, 'an own file URL in assistant content is the parent');

    const versions = await t.app.inject({
      method: 'GET',
      url: `/api/v1/history/${four.id}/versions`,
      headers: bearer(apiKey),
    });
    assert.equal(versions.statusCode, 200, versions.body);
    const ids = (versions.json().versions as Array<{ id: string }>).map((v) => v.id);
    assert.deepEqual(ids, [one.id, two.id, three.id, four.id]);

    // Another account sending the same conversation gets a new, unrelated work (no parent of ours).
    const other = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: otherKey, maxRetries: 0 });
    await chat({ messages: messages.slice(0, 3) }, other);
    const theirs = await newest(otherKey);
    assert.equal(theirs.parentId ?? null, null);
    assert.equal(theirs.mode, 'edit', 'a foreign image is a plain reference');
  });

  test('openai SDK: stream true sends the role, the images, finish_reason stop, then ends', async () => {
    const stream = await client.chat.completions.create({
      model: 'flash2',
      messages: [{ role: 'user', content: 'a lighthouse at dawn' }],
      modalities: ['image', 'text'],
      stream: true,
    } as never);
    const chunks: Array<Record<string, unknown>> = [];
    for await (const chunk of stream as unknown as AsyncIterable<Record<string, unknown>>) chunks.push(chunk);
    const choices = chunks.map((c) => (c.choices as Array<Record<string, unknown>>)[0] ?? {});
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
    assert.deepEqual(choices[0]?.delta, { role: 'assistant', content: '' });
    const withImages = choices.find((c) => (c.delta as { images?: unknown[] }).images);
    const images =
      (withImages?.delta as { images?: Array<{ type: string; image_url: { url: string } }> })?.images ?? [];
    assert.equal(images.length, 1);
    assert.equal(images[0]?.type, 'image_url');
    assert.match(images[0]?.image_url.url ?? '', /^data:image\/png;base64,/);
    assert.equal(choices.at(-1)?.finish_reason, 'stop');
    assert.ok(chunks.at(-1)?.usage, 'the last chunk carries usage');

    // A failure after the stream began is an error line the SDK raises.
    const failing = await client.chat.completions.create({
      model: 'flash2',
      messages: [{ role: 'user', content: '[[fail]]' }],
      modalities: ['image'],
      stream: true,
    } as never);
    await assert.rejects(
      (async () => {
        for await (const _ of failing as unknown as AsyncIterable<unknown>) {
        }
      })(),
      (error: unknown) => error instanceof OpenAI.APIError && /generation failed/i.test(error.message),
    );
  });

  test('image inputs: a data URL edits, an Atelier upload URL edits; without fusion two images are refused and the user’s image wins', async () => {
    const data = await dataUrl();
    await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'make it a watercolour' },
            { type: 'image_url', image_url: { url: data } },
          ],
        },
      ],
    });
    const edit = await newest();
    assert.equal(edit.mode, 'edit');
    const refs = edit.refs as string[];
    assert.equal(refs.length, 1);
    assert.match(
      refs[0] ?? '',
      new RegExp(`^${t.baseUrl}/files/uploads/`),
      'the data URL was stored as an upload',
    );

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await makePng(80, 60))], { type: 'image/png' }), 'a.png');
    const upload = await (
      await fetch(`${t.baseUrl}/api/v1/upload`, { method: 'POST', headers: bearer(apiKey), body: form })
    ).json();
    const uploadUrl = String(upload.url);
    await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: uploadUrl } },
            { type: 'text', text: 'sepia' },
          ],
        },
      ],
    });
    const fromUpload = await newest();
    assert.deepEqual(fromUpload.refs, [uploadUrl]);
    assert.equal(fromUpload.parentId ?? null, null, 'an upload is a reference, not a parent');

    // Two images on a model without fusion: refused, naming messages.
    const two = [
      { type: 'text', text: 'blend them' },
      { type: 'image_url', image_url: { url: uploadUrl } },
      { type: 'image_url', image_url: { url: await dataUrl({ r: 10, g: 200, b: 10 }) } },
    ];
    await refused({ messages: [{ role: 'user', content: two }] }, 400, 'messages');

    // After an assistant image, the user's own image on a model without fusion: theirs is edited.
    const made = await chat({ messages: [{ role: 'user', content: 'a green pear' }] });
    const followUp = [
      { role: 'user', content: 'a green pear' },
      made.choices[0]?.message,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'like this one' },
          { type: 'image_url', image_url: { url: uploadUrl } },
        ],
      },
    ];
    await chat({ messages: followUp });
    const own = await newest();
    assert.deepEqual(own.refs, [uploadUrl]);
    assert.equal(own.parentId ?? null, null);
  });

  test('refusals in OpenAI’s shape: text-only modalities, unknown model, malformed messages', async () => {
    const messages = [{ role: 'user', content: 'a cat' }];
    await refused({ messages, modalities: ['text'] }, 400, 'modalities');
    await refused({ messages, modalities: ['image', 'audio'] }, 400, 'modalities');
    await refused({ messages, model: 'no-such-model' }, 404, null, 'model_not_found');
    await refused({ messages: [] }, 400, 'messages');
    await refused({ messages: 'a cat' }, 400, 'messages');
    await refused({ messages: [{ role: 'system', content: 'be nice' }] }, 400, 'messages');
    await refused({ messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages');
    await refused(
      { messages: [{ role: 'user', content: [{ type: 'input_audio', text: 'x' }] }] },
      400,
      'messages',
    );
    const badImage = { type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } };
    await refused(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, badImage] }] },
      400,
      'messages',
    );
    const notImage = { type: 'image_url', image_url: { url: 'data:text/plain;base64,aGVsbG8=' } };
    await refused(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, notImage] }] },
      400,
      'messages',
    );
    await refused({ messages, image_config: { aspect_ratio: '7:3' } }, 400, 'image_config');
    await refused({ messages, image_config: { image_size: '9K' } }, 400, 'image_config');
    // Modalities absent: an image answer (every model makes images only).
    const answer = (await client.chat.completions.create({
      model: 'flash2',
      messages,
    } as never)) as unknown as ChatAnswer;
    assert.equal(answer.choices[0]?.message.images.length, 1);
  });

  test('asynchronous on request: 202 with the image task envelope, read back once done', async () => {
    const response = await fetch(`${t.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({
        model: 'flash2',
        messages: [{ role: 'user', content: 'a fox' }],
        modalities: ['image'],
      }),
    });
    assert.equal(response.status, 202);
    const envelope = await response.json();
    assert.equal(envelope.object, 'image.generation.task');
    assert.equal(envelope.task_ids.length, 1);
    const location = String(response.headers.get('location'));
    const done = await fetch(`${t.baseUrl}${location}?wait=60`, { headers: bearer(apiKey) });
    const body = await done.json();
    assert.equal(body.status, 'completed', JSON.stringify(body));
    assert.ok(body.data[0].b64_json, 'the default data format polls as b64_json');

    // The next turn, asynchronous too, refines that image: an edit task, named as its parent.
    const parent = await newest();
    const followUp = await fetch(`${t.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'flash2',
        async: true,
        messages: [
          { role: 'user', content: 'a fox' },
          {
            role: 'assistant',
            images: [
              { type: 'image_url', image_url: { url: `data:image/png;base64,${body.data[0].b64_json}` } },
            ],
          },
          { role: 'user', content: 'in the snow' },
        ],
      }),
    });
    assert.equal(followUp.status, 202);
    assert.equal((await followUp.json()).object, 'image.edit.task');
    const edited = await fetch(`${t.baseUrl}${followUp.headers.get('location')}?wait=60`, {
      headers: bearer(apiKey),
    });
    assert.equal((await edited.json()).status, 'completed');
    const child = await newest();
    assert.equal(child.parentId, parent.id);
    assert.equal(child.instruction, 'in the snow');
  });

  test('Idempotency-Key: the same turn sent twice makes one work and answers the same', async () => {
    const before = (await historyItems()).length;
    const send = () =>
      client.chat.completions.create(
        { model: 'flash2', messages: [{ role: 'user', content: 'a kite' }], modalities: ['image'] } as never,
        { headers: { 'Idempotency-Key': 'chat-kite-1' } },
      ) as unknown as Promise<ChatAnswer>;
    const first = await send();
    const again = await send();
    assert.equal(again.id, first.id);
    assert.equal((await historyItems()).length, before + 1);
  });

  test('AI SDK openai-compatible: generateText answers the text; the images are in the raw response body', async () => {
    const provider = createOpenAICompatible({ name: 'atelier', baseURL: `${t.baseUrl}/v1`, apiKey });
    const result = await generateText({
      model: provider('flash2'),
      prompt: 'a teapot on a windowsill',
      providerOptions: { atelier: { modalities: ['image', 'text'] } },
    });
    assert.equal(result.text, 'Here is the image.');
    assert.equal(result.files.length, 0, 'the provider does not surface message.images as files');
    const raw = result.response.body as ChatAnswer;
    assert.match(raw.choices[0]?.message.images[0]?.image_url.url ?? '', /^data:image\/png;base64,/);
    assert.equal((await newest()).prompt, 'a teapot on a windowsill');
  });
});
