import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MODEL, replicateEnv, startCountingReplicate, TOKEN } from '../engine/cluster-fixtures.js';
import type { FakeReplicate } from '../fakes/providers/fake-replicate.js';
import { assertNoKey, echoingText } from '../fakes/providers/key-echo.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// The reported leak: an upstream that echoes the deployment-wide key (split, base64, URL-encoded…)
// in its error text, and an ordinary account reading that text from GET /api/v1/tasks. Provider
// error text is built from allow-listed fields, so no encoding of the key can reach any account.
describe('upstream error text seen through the API', () => {
  let fake: FakeReplicate;
  let t: TestApp;
  let apiKey: string;

  before(async () => {
    fake = await startCountingReplicate();
    t = await createTestApp({ env: replicateEnv(fake) });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const generate = (prompt: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt, model: MODEL, imageSize: '1K' },
    });

  /** Generates one image, waits for its task to end, and returns the batch read's raw body. */
  async function failedTaskBody(prompt: string): Promise<{ body: string; error: string }> {
    const response = await generate(prompt);
    assert.equal(response.statusCode, 200, response.body);
    const [taskId] = response.json().task_ids as string[];
    const { final } = await pollUntilFinal(t.app, apiKey, taskId ?? '');
    assert.equal(final.status, 'failed');
    const batch = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${taskId}`,
      headers: bearer(apiKey),
    });
    return { body: batch.body, error: final.error ?? '' };
  }

  test('a create refused with the key in its text: 500 upstream_error, without the key', async () => {
    fake.scriptCreate({
      kind: 'error',
      status: 401,
      json: { title: 'Unauthenticated', detail: `Invalid token ${echoingText(TOKEN)}`, status: 401 },
    });
    const response = await generate('refused create');
    assert.equal(response.statusCode, 500, response.body);
    assert.equal(response.json().error.type, 'upstream_error');
    assert.match(response.json().error.message, /key was rejected.*\(HTTP 401\)/);
    assertNoKey(response.body, TOKEN, 'the generate answer');
  });

  test('a poll refused with the key in its text: the task error says why, without the key', async () => {
    fake.scriptPoll({ kind: 'error', status: 422, json: { detail: echoingText(TOKEN) } });
    const { body, error } = await failedTaskBody('refused poll');
    assert.equal(error, 'Replicate: the upstream refused the input (HTTP 422)');
    assertNoKey(body, TOKEN, 'GET /api/v1/tasks');
  });

  test('a prediction that failed with the key in its error: a fixed reason, without the key', async () => {
    fake.scriptLifecycle({ statuses: ['starting', 'failed'], error: `auth ${echoingText(TOKEN)}` });
    const { body, error } = await failedTaskBody('failed prediction');
    assert.match(error, /^Replicate: prediction \w+ failed: the model reported an error while running$/);
    assertNoKey(body, TOKEN, 'GET /api/v1/tasks');
  });
});
