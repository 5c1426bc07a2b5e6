import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const ORIGIN = 'http://127.0.0.1:8080';

/**
 * Issue 47: the reads of a work whose files the lifecycle removed (deleted past its Undo window, or
 * expired) answer `410 gone` in the contract's error shape, where the work was the caller's; an id
 * that never was, or another account's, stays a 404 (nothing leaks). History keeps it, `removed`.
 */
describe('reads of a purged work', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let otherKey: string;
  let otherCookie: string;

  const get = (url: string, key = apiKey) => t.app.inject({ method: 'GET', url, headers: bearer(key) });
  const web = (method: 'GET' | 'POST' | 'DELETE', url: string, who = cookie, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: who, origin: ORIGIN }, ...(payload ? { payload } : {}) });

  /** A finished work: its generation id and its task id. */
  const makeWork = async (prompt: string) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt, imageSize: '1K' },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const [taskId] = answer.json<{ task_ids: string[] }>().task_ids as [string];
    assert.equal((await pollUntilFinal(t.app, apiKey, taskId)).final.status, 'completed');
    const history = (await get('/api/v1/history?limit=1')).json<{ items: Array<{ id: string }> }>();
    return { id: history.items[0]?.id as string, taskId };
  };

  /** Deletes the work from the website and runs the lifecycle: its files leave storage. */
  const purge = async (id: string) => {
    assert.equal((await web('DELETE', `/web/api/works/${id}`)).statusCode, 204);
    await t.core.lifecycle.runOnce();
  };

  before(async () => {
    t = await createTestApp();
    const mine = await t.createAccount(undefined, { password: PASSWORD });
    const other = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = mine.apiKey;
    otherKey = other.apiKey;
    cookie = await signedInCookie(t.app, { email: mine.email, password: PASSWORD });
    otherCookie = await signedInCookie(t.app, { email: other.email, password: PASSWORD });
  });
  after(() => t?.close());

  test('the work, its refinement and its actions answer 410; unknown and other accounts’ ids stay 404', async () => {
    const work = await makeWork('a lighthouse to be purged');
    // Deleted but within its Undo window (not purged yet): still a 404, as before.
    assert.equal((await web('DELETE', `/web/api/works/${work.id}`)).statusCode, 204);
    assertError(await web('GET', `/web/api/works/${work.id}`), 404, 'not_found');
    await t.core.lifecycle.runOnce();

    assertError(await web('GET', `/web/api/works/${work.id}`), 410, 'gone');
    assertError(await web('GET', '/web/api/works/gen_never_was'), 404, 'not_found');
    assertError(await web('GET', `/web/api/works/${work.id}`, otherCookie), 404, 'not_found');

    for (const parentId of [work.id, work.taskId]) {
      const refine = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
        payload: { prompt: 'brighter', imageSize: '1K', parentId },
      });
      assertError(refine, 410, 'gone');
    }
    const act = (id: string, key = apiKey) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/generations/${id}/actions`,
        headers: bearer(key),
        payload: { action: 'reroll' },
      });
    assertError(await act(work.id), 410, 'gone');
    assertError(await act(work.taskId), 410, 'gone');
    assertError(await act(work.id, otherKey), 404, 'not_found');
    assertError(
      await web('POST', `/web/api/works/${work.id}/actions`, cookie, { action: 'reroll' }),
      410,
      'gone',
    );

    // History and the versions keep it, marked removed; its task record stays.
    const history = (await get('/api/v1/history?limit=50')).json<{
      items: Array<{ id: string; removed?: boolean }>;
    }>();
    assert.equal(history.items.find((item) => item.id === work.id)?.removed, true);
    const versions = await get(`/api/v1/history/${work.id}/versions`);
    assert.equal(versions.statusCode, 200, versions.body);
    assert.equal(versions.json<{ versions: Array<{ removed?: boolean }> }>().versions[0]?.removed, true);
    assert.equal((await get(`/api/v1/tasks/${work.taskId}`)).statusCode, 200);
    assertError(await get(`/api/v1/history/${work.id}/versions`, otherKey), 404, 'not_found');
  });

  test('a stored response whose image was purged answers 410 in OpenAI’s shape', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: bearer(apiKey),
      payload: { model: 'gpt-5', input: 'a harbour at noon', tools: [{ type: 'image_generation' }] },
    });
    assert.equal(created.statusCode, 200, created.body);
    const { id } = created.json<{ id: string }>();
    assert.equal((await get(`/v1/responses/${id}`)).statusCode, 200);
    const history = (await get('/api/v1/history?limit=1')).json<{ items: Array<{ id: string }> }>();
    await purge(history.items[0]?.id as string);

    const read = await get(`/v1/responses/${id}`);
    assert.equal(read.statusCode, 410, read.body);
    assert.equal(read.json<{ error: { code: string } }>().error.code, 'gone');
    const refine = await t.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: bearer(apiKey),
      payload: {
        model: 'gpt-5',
        input: 'brighter',
        previous_response_id: id,
        tools: [{ type: 'image_generation' }],
      },
    });
    assert.equal(refine.statusCode, 410, refine.body);
    assert.equal((await get(`/v1/responses/${id}`, otherKey)).statusCode, 404);
  });

  test('a Gemini conversation whose earlier image was purged goes on: that image is edited as a reference', async () => {
    const turn = (contents: unknown[]) =>
      t.app.inject({
        method: 'POST',
        url: '/v1beta/models/pro:generateContent',
        headers: { 'x-goog-api-key': apiKey },
        payload: { contents },
      });
    const asked = { role: 'user', parts: [{ text: 'a lighthouse at dawn' }] };
    const first = await turn([asked]);
    assert.equal(first.statusCode, 200, first.body);
    const answer = first.json<{ responseId: string; candidates: Array<{ content: { parts: unknown[] } }> }>();
    const firstRecord = (await get(`/api/v1/tasks/${answer.responseId}`)).json<{ imageUrl: string }>();
    const items = (await get('/api/v1/history?limit=50')).json<{
      items: Array<{ id: string; images: string[] }>;
    }>();
    const work = items.items.find((item) => item.images.includes(firstRecord.imageUrl));
    assert.ok(work);
    await purge(work.id);

    const model = { role: 'model', parts: answer.candidates[0]?.content.parts ?? [] };
    const next = await turn([asked, model, { role: 'user', parts: [{ text: 'make the sky darker' }] }]);
    assert.equal(next.statusCode, 200, next.body);
    const nextId = next.json<{ responseId: string }>().responseId;
    const record = (await get(`/api/v1/tasks/${nextId}`)).json<{ parentTaskId?: string }>();
    assert.equal(
      record.parentTaskId,
      undefined,
      'no parent: its files are gone, its bytes came with the turn',
    );
  });
});
