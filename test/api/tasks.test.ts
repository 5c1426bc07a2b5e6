import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('task polling: GET /api/v1/tasks/{id} and GET /api/v1/tasks?ids=', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let done: string;
  let failed: string;
  let foreign: string;

  before(async () => {
    t = await createTestApp();
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
    const gen = async (key: string, prompt: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/generate',
          headers: bearer(key),
          payload: { prompt, imageSize: '1K' },
        })
      ).json().task_ids[0] as string;
    done = await gen(apiKey, 'done');
    failed = await gen(apiKey, '[[fail]] please');
    foreign = await gen(otherKey, 'someone else');
    await Promise.all([
      pollUntilFinal(t.app, apiKey, done),
      pollUntilFinal(t.app, apiKey, failed),
      pollUntilFinal(t.app, otherKey, foreign),
    ]);
  });
  after(() => t.close());

  test('a completed record has exactly the spec fields plus result metadata', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${done}`,
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200);
    const record = response.json();
    assert.equal(record.task_id, done);
    assert.equal(record.status, 'completed');
    assert.equal(record.progress, 100);
    assert.equal(typeof record.imageUrl, 'string');
    assert.equal('error' in record, false);
    assert.equal(record.contentType, 'image/png');
    assert.equal(record.width, 1024);
  });

  test('a failed record carries error, not imageUrl', async () => {
    const record = (
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${failed}`, headers: bearer(apiKey) })
    ).json();
    assert.equal(record.status, 'failed');
    assert.equal(typeof record.error, 'string');
    assert.equal('imageUrl' in record, false);
  });

  test('the /v1/tasks/{id} alias answers the same', async () => {
    const a = await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${done}`, headers: bearer(apiKey) });
    const b = await t.app.inject({ method: 'GET', url: `/v1/tasks/${done}`, headers: bearer(apiKey) });
    assert.equal(b.statusCode, 200);
    assert.deepEqual(b.json(), a.json());
  });

  test("unknown id → 404 not_found; another account's task is indistinguishable", async () => {
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/v1/tasks/tsk_doesnotexist',
      headers: bearer(apiKey),
    });
    const theirs = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${foreign}`,
      headers: bearer(apiKey),
    });
    assert.equal(assertError(unknown, 404, 'not_found'), 'Task not found');
    assert.equal(assertError(theirs, 404, 'not_found'), 'Task not found');
  });

  test('batch: strict input order, duplicates in place, unknown and foreign ids as failed "Task not found"', async () => {
    const ids = [failed, 'tsk_unknown', done, foreign, done];
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${ids.join(',')}`,
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200);
    const { tasks } = response.json();
    assert.deepEqual(
      tasks.map((r: { task_id: string }) => r.task_id),
      ids,
    );
    assert.equal(tasks[0].status, 'failed');
    assert.deepEqual(tasks[1], {
      task_id: 'tsk_unknown',
      status: 'failed',
      progress: 0,
      error: 'Task not found',
    });
    assert.equal(tasks[2].status, 'completed');
    assert.deepEqual(tasks[3], { task_id: foreign, status: 'failed', progress: 0, error: 'Task not found' });
    assert.deepEqual(tasks[4], tasks[2]);
    // Every id finished and already read (the answer comes from memory): the same answer.
    const again = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${[failed, done, foreign, done].join(',')}`,
      headers: bearer(apiKey),
    });
    assert.deepEqual(again.json().tasks, [tasks[0], tasks[2], tasks[3], tasks[2]]);
  });

  test('batch: ids are trimmed and empty entries ignored', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${encodeURIComponent(` ${done} ,, ,${failed},`)}`,
      headers: bearer(apiKey),
    });
    assert.deepEqual(
      response.json().tasks.map((r: { task_id: string }) => r.task_id),
      [done, failed],
    );
  });

  test('batch: exactly 20 ids is fine; 21 is 400', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `tsk_${i}`).join(',');
    const ok = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${twenty}`,
      headers: bearer(apiKey),
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().tasks.length, 20);
    const tooMany = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${twenty},tsk_21`,
      headers: bearer(apiKey),
    });
    assert.match(assertError(tooMany, 400, 'invalid_request'), /at most 20/);
  });

  test('batch: missing, empty, or repeated ids parameter is 400', async () => {
    for (const url of [
      '/api/v1/tasks',
      '/api/v1/tasks?ids=',
      '/api/v1/tasks?ids=,,',
      '/api/v1/tasks?ids=a&ids=b',
    ]) {
      assertError(
        await t.app.inject({ method: 'GET', url, headers: bearer(apiKey) }),
        400,
        'invalid_request',
      );
    }
  });

  test('401 on both polling endpoints: missing header, not Bearer, unknown key', async () => {
    for (const url of [`/api/v1/tasks/${done}`, `/api/v1/tasks?ids=${done}`]) {
      assertError(await t.app.inject({ method: 'GET', url }), 401, 'unauthorized');
      assertError(
        await t.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${apiKey}` } }),
        401,
        'unauthorized',
      );
      assertError(
        await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer' } }),
        401,
        'unauthorized',
      );
      const message = assertError(
        await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer atl_not_a_real_key' } }),
        401,
        'invalid_api_key',
      );
      assert.equal(message, 'Invalid API key');
    }
  });
});
