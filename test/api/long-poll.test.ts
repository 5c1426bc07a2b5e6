import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * An upstream job whose progress the test sets: every engine poll is a store write (poll count,
 * next due time) whether or not the progress moved, which is what a long-poll must see through.
 */
function steeredProvider() {
  const local = createLocalProvider({ clock: systemClock, latencyMs: 1 });
  const state = { progress: 10, polls: 0 };
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const provider: ImageProvider = {
    ...local,
    pollIntervalMs: 20,
    async poll() {
      state.polls++;
      for (const waiter of waiters.filter((w) => state.polls >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      return { kind: 'pending', status: 'in_progress', progress: state.progress };
    },
  };
  /** Resolves once the engine has polled `more` more times. */
  const polled = (more: number) =>
    new Promise<void>((resolve) => waiters.push({ count: state.polls + more, resolve }));
  return { provider, state, polled };
}

describe('long-poll wakes on a visible change only', () => {
  let t: TestApp;
  let apiKey: string;
  const steered = steeredProvider();

  before(async () => {
    t = await createTestApp({
      overrides: {
        providers: {
          get: (name) => (name === 'local' ? steered.provider : undefined),
          names: () => ['local'],
          deploymentKeys: {},
        },
      },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(() => t.close());

  test('?wait= stays pending through engine writes that change nothing visible, and returns the change', async () => {
    const generated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'steady progress', imageSize: '1K' },
    });
    const id = generated.json().task_ids[0] as string;
    await steered.polled(2);
    const current = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${id}`,
      headers: bearer(apiKey),
    });
    assert.deepEqual(current.json(), { task_id: id, status: 'in_progress', progress: 10 });

    let answered = false;
    const waiting = t.app
      .inject({ method: 'GET', url: `/api/v1/tasks/${id}?wait=60`, headers: bearer(apiKey) })
      .finally(() => {
        answered = true;
      });
    // Several polls, each one a write of the task that leaves status and progress as they were.
    await steered.polled(5);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'the long-poll did not return on writes that changed nothing visible');

    steered.state.progress = 40;
    const response = await waiting;
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { task_id: id, status: 'in_progress', progress: 40 });
  });
});
