import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { compareWithIdle } from '../support/latency.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** An open event stream (its answer's status), closed by `close`. */
async function openStream(t: TestApp, apiKey: string, taskId: string) {
  const controller = new AbortController();
  const answer = await fetch(`${t.baseUrl}/api/v1/tasks/events?ids=${taskId}`, {
    headers: bearer(apiKey),
    signal: controller.signal,
  });
  const body = answer.status === 200 ? undefined : await answer.text();
  return {
    status: answer.status,
    retryAfter: answer.headers.get('retry-after'),
    body,
    // Held here until closed: an answer whose body is never read is cancelled by undici once it is
    // garbage-collected, which closed some streams early and let the flood past the cap.
    answer,
    close: () => controller.abort(),
  };
}

/** A task that stays unfinished for the test (the local renderer takes a minute). */
async function pendingTask(t: TestApp, apiKey: string): Promise<string> {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/generate',
    headers: bearer(apiKey),
    payload: { prompt: 'a long render', imageSize: '1K' },
  });
  assert.equal(answer.statusCode, 200, answer.body);
  return (answer.json() as { task_ids: string[] }).task_ids[0] ?? '';
}

/** Opens a stream again until the server has seen closed ones go (each try is a real request). */
async function openOnceFreed(t: TestApp, apiKey: string, taskId: string) {
  for (let i = 0; i < 200; i++) {
    const stream = await openStream(t, apiKey, taskId);
    if (stream.status === 200) return stream;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the closed streams were never given back');
}

describe('open event streams and long-polls are capped per account and per address (issue 25, item 11)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_LOCAL_LATENCY_MS: '60000',
        ATELIER_STREAMS_PER_ACCOUNT: '3',
        ATELIER_STREAMS_PER_ADDRESS: '5',
      },
    });
  });
  after(() => t?.close());

  test('at the cap a stream or a long-poll is 429 with Retry-After; under it, and after a close, they work', async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const taskA = await pendingTask(t, a.apiKey);
    const taskB = await pendingTask(t, b.apiKey);
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await openStream(t, a.apiKey, taskA));
    assert.deepEqual(
      open.map((stream) => stream.status),
      [200, 200, 200],
    );
    const fourth = await openStream(t, a.apiKey, taskA);
    assert.equal(fourth.status, 429, fourth.body);
    assert.equal(JSON.parse(fourth.body ?? '{}').error.type, 'too_many_requests');
    assert.equal(fourth.retryAfter, '5');
    const longPoll = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskA}?wait=30`,
      headers: bearer(a.apiKey),
    });
    assertError(longPoll, 429, 'too_many_requests');
    assert.equal(longPoll.headers['retry-after'], '5');
    const batchPoll = await t.app.inject({
      method: 'GET',
      url: `/v1/tasks?ids=${taskA}&wait=30`,
      headers: bearer(a.apiKey),
    });
    assertError(batchPoll, 429, 'too_many_requests');
    // A plain poll is never refused.
    const poll = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskA}`,
      headers: bearer(a.apiKey),
    });
    assert.equal(poll.statusCode, 200);

    // Another account from the same address: two more, then the address's cap.
    open.push(await openStream(t, b.apiKey, taskB), await openStream(t, b.apiKey, taskB));
    assert.deepEqual(
      open.slice(3).map((stream) => stream.status),
      [200, 200],
    );
    const pastAddress = await openStream(t, b.apiKey, taskB);
    assert.equal(pastAddress.status, 429);
    assert.match(pastAddress.body ?? '', /from this address/);

    // A closed stream gives its place back.
    open.shift()?.close();
    open.push(await openOnceFreed(t, a.apiKey, taskA));
    for (const stream of open) stream.close();
  });
});

describe('an account at its stream cap leaves the others fast (issue 25, item 11, measured)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({
      listen: true,
      env: { ATELIER_LOCAL_LATENCY_MS: '60000', ATELIER_STREAMS_PER_ACCOUNT: '100' },
    });
  });
  after(() => t?.close());

  test("another account's polls and /healthz stay within a small factor of idle", async () => {
    const other = await t.createAccount();
    const otherTask = await pendingTask(t, other.apiKey);
    const poll = async () => {
      const answer = await fetch(`${t.baseUrl}/api/v1/tasks/${otherTask}`, { headers: bearer(other.apiKey) });
      assert.equal(answer.status, 200);
      await answer.arrayBuffer();
    };
    const health = async () => {
      const answer = await fetch(`${t.baseUrl}/healthz`);
      assert.equal(answer.status, 200);
      await answer.arrayBuffer();
    };
    // 300 streams opened at once by one account (a new one each trial, with its own pending task,
    // so no trial waits for the server to see the last one's streams go).
    const trials = await compareWithIdle({
      label: "other account's poll, flooder at its stream cap",
      request: poll,
      samples: 20,
      warmUp: 10,
      factor: 20,
      startLoad: async () => {
        const flooder = await t.createAccount();
        const flooderTask = await pendingTask(t, flooder.apiKey);
        const flood = await Promise.all(
          Array.from({ length: 300 }, () => openStream(t, flooder.apiKey, flooderTask)),
        );
        return async () => {
          try {
            await health();
          } finally {
            for (const stream of flood) stream.close();
          }
          return flood.map((stream) => stream.status);
        };
      },
    });
    for (const { load: statuses } of trials) {
      assert.equal(statuses.filter((status) => status === 200).length, 100, 'the cap holds');
      assert.equal(statuses.filter((status) => status === 429).length, 200);
    }
  });
});
