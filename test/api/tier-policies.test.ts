import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const policy = {
  tiers: {
    trial: { models: ['base-image-2', 'flash'], images_per_day: 10, images_per_month: 100 },
    starter: { tasks_in_flight: 3 },
    standard: { images_per_day: 2 },
  },
};

describe('tier policies (ATELIER_POLICY_FILE): allowed models and quotas, checked atomically', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-policy-'));
    const file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(policy));
    // Tasks stay in flight for the whole test: quotas are about what was requested.
    t = await createTestApp({ env: { ATELIER_POLICY_FILE: file, ATELIER_LOCAL_LATENCY_MS: '600000' } });
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const generate = (apiKey: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(apiKey), payload });
  const usage = async (apiKey: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/user/usage', headers: bearer(apiKey) })).json();
  const historyTotal = async (apiKey: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })).json().total;

  /** Sends `n` generate requests at once; returns the answers. */
  const burst = (apiKey: string, n: number, payload: Record<string, unknown> = { prompt: 'burst' }) =>
    Promise.all(Array.from({ length: n }, () => generate(apiKey, payload)));

  function assertBoundary(
    answers: Awaited<ReturnType<typeof burst>>,
    allowed: number,
    retryAfterMax: number,
  ) {
    const accepted = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode !== 200);
    assert.equal(accepted.length, allowed, 'exactly the allowance accepted');
    for (const answer of refused) {
      assert.match(assertError(answer, 429, 'quota_exceeded'), /Quota exceeded/);
      const retryAfter = Number(answer.headers['retry-after']);
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= retryAfterMax,
        `Retry-After ${retryAfter}`,
      );
    }
  }

  test('50 concurrent requests at a daily boundary: exactly the allowance is accepted, the rest 429 with Retry-After', async () => {
    const { apiKey } = await t.createAccount(undefined, { tier: 'trial' });
    assertBoundary(await burst(apiKey, 50), 10, 86_400);
    assert.equal(await historyTotal(apiKey), 10, 'refused requests created nothing');
    const { allowance } = await usage(apiKey);
    assert.equal(allowance.tier, 'trial');
    assert.deepEqual(allowance.models, ['base-image-2', 'flash']);
    assert.deepEqual(
      { ...allowance.images_per_day, resets_at: undefined },
      { limit: 10, used: 10, remaining: 0, resets_at: undefined },
    );
    assert.equal(allowance.images_per_day.resets_at % 86_400_000, 0, 'resets at midnight UTC');
    assert.equal(allowance.images_per_month.used, 10);
    assert.equal(allowance.tasks_in_flight, null);
  });

  test('a request for several images is refused whole when it does not fit', async () => {
    const { apiKey } = await t.createAccount(undefined, { tier: 'trial' });
    assert.equal((await generate(apiKey, { prompt: 'four', count: 4 })).statusCode, 200);
    assert.equal((await generate(apiKey, { prompt: 'four', count: 4 })).statusCode, 200);
    const message = assertError(await generate(apiKey, { prompt: 'four', count: 4 }), 429, 'quota_exceeded');
    assert.match(message, /10 images per day \(UTC\); 8 used, 4 requested/);
    assert.equal((await generate(apiKey, { prompt: 'two', count: 2 })).statusCode, 200);
  });

  test('50 concurrent requests against tasks in flight: exactly the limit; a task that ends frees its place', async () => {
    const { apiKey } = await t.createAccount(undefined, { tier: 'starter' });
    const answers = await burst(apiKey, 50);
    assertBoundary(answers, 3, 5);
    const [first, second] = answers.filter((a) => a.statusCode === 200).map((a) => a.json().task_ids[0]);
    const cancel = (id: string) =>
      t.app.inject({ method: 'POST', url: `/api/v1/tasks/${id}/cancel`, headers: bearer(apiKey) });

    // A refusal is not an answer to replay: the same Idempotency-Key succeeds once a place is free.
    const keyed = {
      method: 'POST' as const,
      url: '/api/v1/generate',
      headers: { ...bearer(apiKey), 'idempotency-key': 'order-1' },
      payload: { prompt: 'keyed' },
    };
    assertError(await t.app.inject(keyed), 429, 'quota_exceeded');
    assert.equal((await cancel(first)).statusCode, 200);
    const retried = await t.app.inject(keyed);
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], undefined);

    assert.equal((await cancel(second)).statusCode, 200);
    assertBoundary(await burst(apiKey, 10), 1, 5);
    const { allowance } = await usage(apiKey);
    assert.deepEqual(allowance.tasks_in_flight, { limit: 3, current: 3, remaining: 0 });
  });

  test('an image that fails gives its place back (a generation refused upstream spends nothing)', async () => {
    const { apiKey } = await t.createAccount(undefined, { tier: 'standard' });
    for (let i = 0; i < 3; i++)
      assertError(await generate(apiKey, { prompt: 'no [[upstream_error]]' }), 500, 'upstream_error');
    assertBoundary(await burst(apiKey, 5), 2, 86_400);
  });

  test('a model the tier may not use is 403 forbidden_model, and nothing is created', async () => {
    const { apiKey } = await t.createAccount(undefined, { tier: 'trial' });
    const message = assertError(
      await generate(apiKey, { prompt: 'x', model: 'pro' }),
      403,
      'forbidden_model',
    );
    assert.match(message, /pro is not available on the trial tier \(available: base-image-2, flash\)/);
    assert.equal(await historyTotal(apiKey), 0);
    // The website's generate goes through the same door (its route declares the same errors).
    const { apiKey: unrestricted } = await t.createAccount(undefined, { tier: 'pro' });
    assert.equal((await generate(unrestricted, { prompt: 'x', model: 'pro' })).statusCode, 200);
    assert.equal((await usage(unrestricted)).allowance, null, 'no policy for the pro tier');
  });
});
