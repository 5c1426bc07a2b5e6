import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { type FakeGemini, startFakeGemini } from '../fakes/providers/fake-gemini.js';
import { bearer, makePng, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Multi-turn image editing through the Gemini-native route (issue 44), driven by `@google/genai`'s
 * chat as apps use it: each turn sends the conversation back, the model's images with their
 * `thoughtSignature`s. Atelier's answer signs its image; the next turn refines that work. With a
 * Gemini upstream, Atelier sends the upstream's own signatures it kept, and the loopback Gemini
 * refuses a model turn whose image lacks the signature it issued.
 */

type Json = Record<string, unknown>;

const MESSAGES = ['a lighthouse at dawn', 'make the sky darker', 'add a small red boat'];

/** The image part of an answer, and the task that made it (`responseId`: the task ids). */
function imagePartOf(response: GenerateContentResponse) {
  const part = response.candidates?.[0]?.content?.parts?.find((p) => p.inlineData);
  assert.ok(part?.inlineData?.data, 'the answer carries an image');
  assert.ok(part.thoughtSignature, 'the image part carries a thoughtSignature');
  const taskId = response.responseId ?? '';
  assert.ok(taskId.startsWith('tsk_'), taskId);
  return { part, taskId };
}

/** Helpers over one app and account: a task's record, its work's versions. */
function reads(t: TestApp, apiKey: string) {
  const get = async (url: string) => {
    const answer = await t.app.inject({ method: 'GET', url, headers: bearer(apiKey) });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json();
  };
  return {
    task: (id: string) => get(`/api/v1/tasks/${id}`) as Promise<Json>,
    /** The work (generation) whose image is the task's, and its versions' task ids, oldest first. */
    async versionsOf(taskId: string): Promise<Json[]> {
      const record = await get(`/api/v1/tasks/${taskId}`);
      const items = (await get('/api/v1/history?limit=50')).items as Json[];
      const item = items.find((i) => (i.images as string[]).includes(record.imageUrl));
      assert.ok(item, 'the turn is in history');
      return (await get(`/api/v1/history/${String(item.id)}/versions`)).versions as Json[];
    },
  };
}

/** Runs the three messages as one chat; the answers' image parts and tasks. */
async function threeTurns(ai: GoogleGenAI, model: string) {
  const chat = ai.chats.create({ model, config: { responseModalities: ['TEXT', 'IMAGE'] } });
  const turns = [];
  for (const message of MESSAGES) turns.push(imagePartOf(await chat.sendMessage({ message })));
  return { chat, turns };
}

describe('Gemini multi-turn on the local renderer, with @google/genai chats', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let ai: GoogleGenAI;
  const post = (body: unknown, key = apiKey) =>
    fetch(`${t.baseUrl}/v1beta/models/pro:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify(body),
    });

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl } });
  });
  after(() => t?.close());

  let conversation: Awaited<ReturnType<typeof threeTurns>>;

  test('each turn of a chat refines the image before it: the versions are the conversation', async () => {
    conversation = await threeTurns(ai, 'gemini-3-pro-image-preview');
    const { turns, chat } = conversation;
    const r = reads(t, apiKey);
    const records = await Promise.all(turns.map((turn) => r.task(turn.taskId)));
    assert.equal(records[0]?.parentTaskId, undefined);
    assert.equal(records[1]?.parentTaskId, turns[0]?.taskId);
    assert.equal(records[2]?.parentTaskId, turns[1]?.taskId);
    const versions = await r.versionsOf(turns[2]?.taskId ?? '');
    assert.deepEqual(
      versions.map((v) => [v.instruction ?? null, v.prompt]),
      [[null, MESSAGES[0]], ...MESSAGES.slice(1).map((m) => [m, m])],
    );
    // The chat's history holds the signed model turns it sent back.
    const history = chat.getHistory();
    assert.deepEqual(
      history.map((c) => c.role),
      ['user', 'model', 'user', 'model', 'user', 'model'],
    );
  });

  test('without its signature, the image is still recognised by its bytes', async () => {
    const [first] = conversation.turns;
    assert.ok(first?.part.inlineData);
    const answer = await post({
      contents: [
        { role: 'user', parts: [{ text: MESSAGES[0] }] },
        { role: 'model', parts: [{ inlineData: first.part.inlineData }] },
        { role: 'user', parts: [{ text: 'in winter' }] },
      ],
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    const { responseId } = (await answer.json()) as { responseId: string };
    assert.equal((await reads(t, apiKey).task(responseId)).parentTaskId, first.taskId);
  });

  test("a forged signature, or another account's, picks no work; the image is edited as a reference", async () => {
    const [first] = conversation.turns;
    assert.ok(first?.part.inlineData && first.part.thoughtSignature);
    const foreign = (await makePng(64, 64)).toString('base64');
    const forged = Buffer.from(
      Buffer.from(first.part.thoughtSignature, 'base64').toString('utf8').replace(/.$/, '!'),
    ).toString('base64');
    const bodies = [
      // Another account sends this account's signed image back: no parent, no leak.
      { key: otherKey, signature: first.part.thoughtSignature, data: foreign },
      // A signature altered by a character, on bytes this account never had made.
      { key: apiKey, signature: forged, data: foreign },
    ];
    for (const { key, signature, data } of bodies) {
      const answer = await post(
        {
          contents: [
            { role: 'user', parts: [{ text: 'a cat' }] },
            {
              role: 'model',
              parts: [{ inlineData: { mimeType: 'image/png', data }, thoughtSignature: signature }],
            },
            { role: 'user', parts: [{ text: 'make it blue' }] },
          ],
        },
        key,
      );
      assert.equal(answer.status, 200, await answer.clone().text());
      const { responseId } = (await answer.json()) as { responseId: string };
      const record = await reads(t, key).task(responseId);
      assert.equal(record.parentTaskId, undefined, 'no parent');
      const item = ((await reads(t, key).versionsOf(responseId)) as Json[]).at(-1);
      assert.equal(item?.mode, 'edit', 'the model image is the reference edited');
    }
    // The other account's bytes of this account's image are its reference, not this account's work.
    const sent = await post(
      {
        contents: [
          { role: 'model', parts: [{ inlineData: first.part.inlineData }] },
          { role: 'user', parts: [{ text: 'make it blue' }] },
        ],
      },
      otherKey,
    );
    const { responseId } = (await sent.json()) as { responseId: string };
    assert.equal((await reads(t, otherKey).task(responseId)).parentTaskId, undefined);
  });

  test('a conversation without a new user text is refused in Google’s shape', async () => {
    const [first] = conversation.turns;
    const answer = await post({
      contents: [
        { role: 'user', parts: [{ text: 'a cat' }] },
        { role: 'model', parts: [{ inlineData: first?.part.inlineData }] },
      ],
    });
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as { error: { status: string; message: string } };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, /after the model's last image/);
  });
});

const KEY = 'AIzaMultiTurnUpstream-0123456789abcdefgh';

describe('Gemini multi-turn through a Gemini upstream: the kept signatures go back', () => {
  let t: TestApp;
  let gemini: FakeGemini;
  let apiKey: string;
  let dir: string;

  before(async () => {
    gemini = await startFakeGemini({ apiKey: KEY });
    dir = await mkdtemp(join(tmpdir(), 'atelier-gemini-turns-'));
    const shipped = JSON.parse(
      await readFile(fileURLToPath(new URL('../../catalogs/gemini.json', import.meta.url)), 'utf8'),
    ) as { models: Json[] };
    const catalog = join(dir, 'catalog.json');
    const sketch = { id: 'sketch', provider: 'local', upstreamModel: 'local-v1', modes: ['text', 'edit'] };
    await writeFile(catalog, JSON.stringify({ models: [...shipped.models, sketch] }));
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_GEMINI_API_KEY: KEY,
        ATELIER_GEMINI_BASE_URL: gemini.baseUrl,
      },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await gemini?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('three turns: turns 2 and 3 send the earlier turns with the signatures the upstream issued', async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl } });
    const { turns } = await threeTurns(ai, 'gemini-3-pro-image');
    assert.equal(gemini.calls.length, 3);
    const [one, two, three] = gemini.calls.map((call) => call.body.contents);
    assert.deepEqual(
      one?.map((c) => c.role),
      ['user'],
    );
    assert.deepEqual(
      two?.map((c) => c.role),
      ['user', 'model', 'user'],
    );
    assert.deepEqual(
      three?.map((c) => c.role),
      ['user', 'model', 'user', 'model', 'user'],
    );
    const signatureAt = (contents: typeof three, c: number) =>
      (contents?.[c]?.parts[0] as { thoughtSignature?: string } | undefined)?.thoughtSignature;
    assert.equal(signatureAt(two, 1), gemini.signatures[0]);
    assert.equal(signatureAt(three, 1), gemini.signatures[0]);
    assert.equal(signatureAt(three, 3), gemini.signatures[1]);
    // The model turns carry the images Atelier answered; the user turns only their texts (the
    // parent image is the model turn's, not repeated as a reference).
    const imageAt = (contents: typeof three, c: number) =>
      (contents?.[c]?.parts[0] as { inlineData?: { data: string } } | undefined)?.inlineData?.data;
    assert.equal(imageAt(three, 1), turns[0]?.part.inlineData?.data);
    assert.equal(imageAt(three, 3), turns[1]?.part.inlineData?.data);
    assert.deepEqual(three?.[4]?.parts, [{ text: MESSAGES[2] }]);
    assert.deepEqual(three?.[2]?.parts, [{ text: MESSAGES[1] }]);
    // Atelier's own signatures never reach the upstream, nor the upstream's the client.
    assert.ok(!gemini.signatures.includes(turns[0]?.part.thoughtSignature ?? ''));
    const records = await Promise.all(turns.map((turn) => reads(t, apiKey).task(turn.taskId)));
    assert.equal(records[2]?.parentTaskId, turns[1]?.taskId);
    assert.ok(!JSON.stringify(records).includes(gemini.signatures[0] ?? '-'), 'no signature in records');
  });

  test('the loopback upstream refuses a model image without the signature it issued', async () => {
    const last = gemini.calls.at(-1)?.body.contents;
    assert.ok(last);
    const strip = last.map((content) => ({
      ...content,
      parts: content.parts.map((part) => ('inlineData' in part ? { inlineData: part.inlineData } : part)),
    }));
    const answer = await fetch(`${gemini.baseUrl}/v1/models/gemini-3-pro-image:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({ contents: strip, generationConfig: { responseModalities: ['IMAGE'] } }),
    });
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as { error: { message: string; status: string } };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, /Image part is missing a thought_signature in content position 2/);
  });

  test('refining a work another provider made sends its image as a reference, in one turn', async () => {
    const [sketchTask] = await submitGenerate(t.app, apiKey, {
      model: 'sketch',
      prompt: 'a fox',
      imageSize: '1K',
    });
    assert.ok(sketchTask);
    assert.equal((await pollUntilFinal(t.app, apiKey, sketchTask)).final.status, 'completed');
    const before = gemini.calls.length;
    const [refined] = await submitGenerate(t.app, apiKey, {
      model: 'pro',
      prompt: 'make it a watercolour',
      parentId: sketchTask,
      imageSize: '1K',
    });
    assert.ok(refined);
    const { final } = await pollUntilFinal(t.app, apiKey, refined);
    assert.equal(final.status, 'completed', JSON.stringify(final));
    assert.equal((final as unknown as Json).parentTaskId, sketchTask);
    const call = gemini.calls[before];
    assert.ok(call);
    assert.deepEqual(
      call.body.contents.map((c) => c.role),
      ['user'],
    );
    const parts = call.body.contents[0]?.parts ?? [];
    assert.deepEqual(parts[0], { text: 'make it a watercolour' });
    assert.ok(parts[1] && 'inlineData' in parts[1], 'the parent image inline');
    assert.equal(parts.length, 2);
  });
});
