import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

describe('GET /api/v1/history and GET /api/v1/user/status', () => {
  let t: TestApp;
  let apiKey: string;
  let accountId: string;
  let email: string;
  const prompts = ['one', 'two', 'three', 'four', 'five'];

  before(async () => {
    t = await createTestApp();
    ({ apiKey, id: accountId, email } = await t.createAccount(undefined, { tier: 'starter' }));
    for (const prompt of prompts) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
        payload: { prompt, imageSize: '1K', aspect: '3:4', model: 'pro' },
      });
      await pollUntilFinal(t.app, apiKey, response.json().task_ids[0]);
    }
  });
  after(() => t.close());

  const history = (query = '', key = apiKey) =>
    t.app.inject({ method: 'GET', url: `/api/v1/history${query}`, headers: bearer(key) });

  test('defaults page 1, limit 20; newest first; every item field', async () => {
    const response = await history();
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['items', 'limit', 'page', 'total', 'total_pages']);
    assert.equal(body.page, 1);
    assert.equal(body.limit, 20);
    assert.equal(body.total, 5);
    assert.equal(body.total_pages, 1);
    assert.deepEqual(
      body.items.map((i: { prompt: string }) => i.prompt),
      [...prompts].reverse(),
    );
    const item = body.items[0];
    assert.deepEqual(Object.keys(item).sort(), [
      'aspect',
      'collections',
      'cost',
      'createdAt',
      'id',
      'imageCount',
      'imageSize',
      'images',
      'mode',
      'model',
      'prompt',
      'refs',
      'seed',
      'starred',
    ]);
    assert.match(item.id, /^gen_/);
    // Extra field (issue 45): the offline renderer takes seeds, so one was drawn and recorded.
    assert.ok(Number.isInteger(item.seed) && item.seed >= 0);
    // Extra fields (issue 30): not starred, in no collection.
    assert.equal(item.starred, false);
    assert.deepEqual(item.collections, []);
    assert.equal(item.model, 'pro');
    assert.equal(item.mode, 'text');
    assert.equal(item.aspect, '3:4');
    // Extra field (issue 31): what its completed images cost so far; the local renderer costs nothing.
    assert.deepEqual(item.cost, { amount_micros: 0, currency: 'USD' });
    assert.equal(item.imageSize, '1K');
    assert.equal(item.imageCount, 1);
    assert.equal(item.images.length, 1);
    assert.deepEqual(item.refs, []);
    assert.ok(Number.isInteger(item.createdAt) && item.createdAt > 1_600_000_000_000);
  });

  test('paging: limit 2 gives 3 pages; a page past the end is empty', async () => {
    const p1 = (await history('?page=1&limit=2')).json();
    const p3 = (await history('?page=3&limit=2')).json();
    const p4 = (await history('?page=4&limit=2')).json();
    assert.equal(p1.total_pages, 3);
    assert.deepEqual(
      p1.items.map((i: { prompt: string }) => i.prompt),
      ['five', 'four'],
    );
    assert.deepEqual(
      p3.items.map((i: { prompt: string }) => i.prompt),
      ['one'],
    );
    assert.deepEqual(p4.items, []);
    assert.equal(p4.total, 5);
    assert.equal((await history('?limit=50')).statusCode, 200);
  });

  test('400 for bad page or limit, saying what is accepted', async () => {
    for (const [query, message] of [
      ['?page=0', 'page must be at least 1'],
      ['?page=-1', 'page must be at least 1'],
      ['?page=-99999999999999999999', 'page must be at least 1'],
      ['?page=abc', 'page must be an integer'],
      ['?page=1.5', 'page must be an integer'],
      ['?limit=0', 'limit must be between 1 and 50'],
      ['?limit=-5', 'limit must be between 1 and 50'],
      ['?limit=51', 'limit must be between 1 and 50'],
      ['?limit=2.5', 'limit must be an integer'],
      ['?page=1&page=2', 'page must be an integer'],
    ]) {
      assert.equal(assertError(await history(query), 400, 'invalid_request'), message, query);
    }
    assert.equal((await history('?page=%2B2')).json().page, 2, 'an explicit + sign is an integer too');
  });

  test('an account with no generations: total 0, total_pages 0', async () => {
    const { apiKey: fresh } = await t.createAccount();
    const body = (await history('', fresh)).json();
    assert.deepEqual(body, { items: [], total: 0, page: 1, limit: 20, total_pages: 0 });
  });

  test('401 without or with a bad key', async () => {
    assertError(await t.app.inject({ method: 'GET', url: '/api/v1/history' }), 401, 'unauthorized');
    assertError(await history('', 'atl_wrong'), 401, 'invalid_api_key');
  });

  test('user/status: email, tier, has_key (the local renderer needs no key)', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/status',
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      email,
      tier: 'starter',
      has_key: true,
      spend_confirmation: { above_micros: 500_000, api_keys: false, sign_in: true },
    });
    await t.core.accounts.setTier(accountId, 'pro');
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assert.equal(after.json().tier, 'pro');
    assertError(await t.app.inject({ method: 'GET', url: '/api/v1/user/status' }), 401, 'unauthorized');
    assertError(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/user/status',
        headers: { authorization: 'Bearer atl_nope' },
      }),
      401,
      'invalid_api_key',
    );
  });
});
