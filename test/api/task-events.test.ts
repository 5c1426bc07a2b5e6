import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

interface TaskRecord {
  task_id: string;
  status: string;
  progress: number;
  error?: string;
}

interface StreamEvent {
  event: string;
  data: unknown;
}

/** The events of an SSE stream as they arrive, until it ends (or `limitMs`). */
async function* streamEvents(
  url: string,
  headers: Record<string, string>,
  limitMs = 20_000,
): AsyncGenerator<StreamEvent> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(limitMs) });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let index = buffer.indexOf('\n\n');
    while (index !== -1) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) yield { event, data: JSON.parse(data) };
      index = buffer.indexOf('\n\n');
    }
  }
}

/** Reads an SSE stream to its end (or `limitMs`), returning the events. */
async function readEvents(url: string, headers: Record<string, string>, limitMs = 20_000) {
  const events: StreamEvent[] = [];
  for await (const event of streamEvents(url, headers, limitMs)) events.push(event);
  return events;
}

describe('beyond polling: event stream, long-poll, cancel', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;

  before(async () => {
    t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '1500' } });
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
  });
  after(() => t.close());

  const generate = async (prompt: string, count = 1, key = apiKey) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(key),
      payload: { prompt, count, imageSize: '1K' },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().task_ids as string[];
  };

  test('SSE streams every transition in order, then ends when every task is final', async () => {
    // Its own app whose engine starts only once the stream has shown both tasks queued: the
    // queued state is seen for sure, however slowly the stream connects.
    const q = await createTestApp({
      listen: true,
      startEngine: false,
      env: { ATELIER_LOCAL_LATENCY_MS: '1500' },
    });
    try {
      const own = (await q.createAccount()).apiKey;
      const other = (await q.createAccount()).apiKey;
      const submit = async (key: string, prompt: string, count: number) => {
        const response = await q.app.inject({
          method: 'POST',
          url: '/api/v1/generate',
          headers: bearer(key),
          payload: { prompt, count, imageSize: '1K' },
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json().task_ids as string[];
      };
      const [a, b] = await submit(own, 'stream me', 2);
      const [foreign] = await submit(other, 'not yours', 1);
      const events: StreamEvent[] = [];
      const queued = new Set<string>();
      for await (const event of streamEvents(
        `${q.baseUrl}/api/v1/tasks/events?ids=${a},${b},${foreign}`,
        bearer(own),
      )) {
        events.push(event);
        const record = event.data as TaskRecord;
        if (event.event === 'task' && record.status === 'queued' && queued.add(record.task_id).size === 2)
          q.core.engine.start();
      }
      assert.equal(events.at(-1)?.event, 'end');
      const taskEvents = events.filter((e) => e.event === 'task').map((e) => e.data as TaskRecord);
      assert.deepEqual(
        taskEvents.find((r) => r.task_id === foreign),
        { task_id: foreign, status: 'failed', progress: 0, error: 'Task not found' },
      );
      for (const id of [a, b]) {
        const seen = taskEvents.filter((r) => r.task_id === id);
        const statuses = [...new Set(seen.map((r) => r.status))];
        assert.deepEqual(statuses, ['queued', 'in_progress', 'completed'], `transitions of ${id}`);
        for (let i = 1; i < seen.length; i++) {
          assert.ok(
            (seen[i]?.progress ?? 0) > (seen[i - 1]?.progress ?? 0) ||
              seen[i]?.status !== seen[i - 1]?.status,
          );
        }
        assert.ok(seen.length >= 4, 'progress updates are streamed too');
      }
    } finally {
      await q.close();
    }
  });

  test('SSE: an already-final task is sent once and the stream ends; bad ids are a JSON 400', async () => {
    const [id] = await generate('finished first');
    await pollUntilFinal(t.app, apiKey, id ?? '');
    const events = await readEvents(`${t.baseUrl}/api/v1/tasks/events?ids=${id}`, bearer(apiKey));
    assert.deepEqual(
      events.map((e) => e.event),
      ['task', 'end'],
    );
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/tasks/events', headers: bearer(apiKey) }),
      400,
      'invalid_request',
    );
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/events?ids=${id}` }),
      401,
      'unauthorized',
    );
  });

  test('long-poll returns early on a change, not at the timeout', async () => {
    const [id] = await generate('wait for me');
    const started = Date.now();
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${id}?wait=30`,
      headers: bearer(apiKey),
    });
    const elapsed = Date.now() - started;
    assert.equal(response.statusCode, 200);
    assert.ok(elapsed < 25_000, `returned after ${elapsed} ms, well before the 30 s timeout`);
    const record = response.json() as TaskRecord;
    assert.ok(
      record.status !== 'queued' || record.progress > 0,
      `a changed record: ${JSON.stringify(record)}`,
    );

    const batch = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${id},tsk_none&wait=30`,
      headers: bearer(apiKey),
    });
    assert.equal(batch.statusCode, 200);
    assert.equal(batch.json().tasks[1].error, 'Task not found');
  });

  test('long-poll on a final task answers at once; wait is validated', async () => {
    const [id] = await generate('[[fail]] fast');
    await pollUntilFinal(t.app, apiKey, id ?? '');
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${id}?wait=60`,
      headers: bearer(apiKey),
    });
    assert.equal(response.json().status, 'failed');
    for (const wait of ['-1', '61', 'soon', '1.5']) {
      assertError(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/tasks/${id}?wait=${wait}`,
          headers: bearer(apiKey),
        }),
        400,
        'invalid_request',
      );
    }
  });

  test('cancel: a queued or in-progress task ends failed "Canceled" and stays so; cancel is idempotent', async () => {
    const [queued, running] = await generate('cancel us', 2);
    const first = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tasks/${queued}/cancel`,
      headers: bearer(apiKey),
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().status, 'failed');
    assert.equal(first.json().error, 'Canceled');

    // wait until the other one is in progress, then cancel it (with an empty JSON body)
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/api/v1/tasks/${running}`,
        headers: bearer(apiKey),
      });
      if (r.json().status === 'in_progress') break;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    const second = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tasks/${running}/cancel`,
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    });
    assert.equal(second.json().error, 'Canceled');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const id of [queued, running]) {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: bearer(apiKey) });
      assert.deepEqual(
        { status: r.json().status, error: r.json().error },
        { status: 'failed', error: 'Canceled' },
      );
    }
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tasks/${queued}/cancel`,
      headers: bearer(apiKey),
    });
    assert.equal(again.statusCode, 200);
  });

  test('cancel: a completed task is 409 conflict and stays completed; foreign and unknown ids are 404', async () => {
    const [id] = await generate('done before cancel');
    await pollUntilFinal(t.app, apiKey, id ?? '');
    assertError(
      await t.app.inject({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: bearer(apiKey) }),
      409,
      'conflict',
    );
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: bearer(apiKey) });
    assert.equal(r.json().status, 'completed');
    assertError(
      await t.app.inject({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: bearer(otherKey) }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({ method: 'POST', url: '/api/v1/tasks/tsk_nope/cancel', headers: bearer(apiKey) }),
      404,
      'not_found',
    );
  });
});
