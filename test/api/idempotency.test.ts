import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('Idempotency-Key', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;

  before(async () => {
    t = await createTestApp();
    ({ apiKey } = await t.createAccount());
    ({ apiKey: otherKey } = await t.createAccount());
  });
  after(() => t.close());

  const generate = (key: string | undefined, payload: object, apiKeyToUse = apiKey) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { ...bearer(apiKeyToUse), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });
  const historyTotal = async (k = apiKey) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(k) })).json()
      .total as number;

  test('same key + same body → the original response replayed, nothing new submitted', async () => {
    const before = await historyTotal();
    const first = await generate('order-1', { prompt: 'idempotent', count: 2, imageSize: '1K' });
    assert.equal(first.statusCode, 200);
    // key order in the body does not matter
    const second = await generate('order-1', { imageSize: '1K', count: 2, prompt: 'idempotent' });
    assert.equal(second.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await historyTotal(), before + 1);
  });

  test('same key + different body → 422 idempotency_mismatch', async () => {
    await generate('order-2', { prompt: 'one', imageSize: '1K' });
    assertError(await generate('order-2', { prompt: 'two', imageSize: '1K' }), 422, 'idempotency_mismatch');
  });

  test('same key while the first is still running → 409 idempotency_in_progress; exactly one submitted', async () => {
    const before = await historyTotal();
    const payload = { prompt: 'concurrent', imageSize: '1K' };
    const results = await Promise.all(Array.from({ length: 5 }, () => generate('order-3', payload)));
    const codes = results.map((r) => r.statusCode).sort();
    assert.ok(codes.includes(200));
    for (const r of results) {
      if (r.statusCode !== 200) assertError(r, 409, 'idempotency_in_progress');
      else if (r.headers['idempotent-replayed'] !== 'true') assert.ok(r.json().task_ids);
    }
    const original = results.filter(
      (r) => r.statusCode === 200 && r.headers['idempotent-replayed'] !== 'true',
    );
    assert.equal(original.length, 1);
    assert.equal(await historyTotal(), before + 1);
  });

  test('keys are scoped per account', async () => {
    const before = await historyTotal(otherKey);
    const mine = await generate('shared-name', { prompt: 'mine', imageSize: '1K' });
    const theirs = await generate('shared-name', { prompt: 'theirs', imageSize: '1K' }, otherKey);
    assert.equal(theirs.statusCode, 200);
    assert.notDeepEqual(theirs.json().task_ids, mine.json().task_ids);
    assert.equal(await historyTotal(otherKey), before + 1);
  });

  test('a 4xx answer is not kept (the key is free: answered afresh); a 5xx (upstream refusal) frees it too', async () => {
    // Issue 25, item 13: a refusal committed nothing, and keeping it spent a record of the cap.
    const bad = await generate('order-4', { prompt: '' });
    assertError(bad, 400, 'invalid_request');
    const again = await generate('order-4', { prompt: '' });
    assertError(again, 400, 'invalid_request');
    assert.equal(again.headers['idempotent-replayed'], undefined);
    const fixed = await generate('order-4', { prompt: 'now valid', imageSize: '1K' });
    assert.equal(fixed.statusCode, 200, 'the same key, corrected body: accepted');

    assertError(await generate('order-5', { prompt: 'x [[upstream_error]]' }), 500, 'upstream_error');
    const retried = await generate('order-5', { prompt: 'x [[upstream_error]]' });
    assert.equal(retried.headers['idempotent-replayed'], undefined);
  });

  test('bad keys are 400', async () => {
    assertError(await generate('', { prompt: 'p' }), 400, 'invalid_request');
    assertError(await generate('k'.repeat(256), { prompt: 'p' }), 400, 'invalid_request');
    assert.equal((await generate('k'.repeat(255), { prompt: 'p', imageSize: '1K' })).statusCode, 200);
  });

  test('upload by URL takes the key as well; its refusal is not kept', async () => {
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'idempotency-key': 'up-1' },
      payload: { source_url: 'http://10.0.0.1/x.png' },
    });
    assertError(first, 400, 'invalid_request');
    // A refusal is not kept: the same key with another body is answered afresh, not 422.
    const afresh = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'idempotency-key': 'up-1' },
      payload: { source_url: 'http://10.0.0.2/y.png' },
    });
    assertError(afresh, 400, 'invalid_request');
    assert.match(afresh.json().error.message, /10\.0\.0\.2|not public|address/);
  });
});
