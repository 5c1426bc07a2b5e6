import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INSUFFICIENT_SCOPE_MESSAGE } from '../../src/edges/http/key-scopes.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Issue 31: a `read` key (for dashboards) polls, reads history, status and usage; every route that
 * creates, changes or spends answers 403 insufficient_scope, in the shape of its surface (the
 * spec's on /api/v1 and /v1, OpenAI's on /v1/images, Google's on /v1beta). Revoked and expired
 * keys are 401 invalid_api_key, "Invalid API key" (spec §5).
 */
describe('API key scopes', () => {
  // The core's clock, which the test moves past a key's expiry.
  let skew = 0;
  const clock = { now: () => Date.now() + skew };
  let t: TestApp;
  let accountId: string;
  let fullKey: string;
  let readKey: string;
  let taskId: string;

  before(async () => {
    t = await createTestApp({ overrides: { clock } });
    const created = await t.createAccount(undefined, { tier: 'standard' });
    accountId = created.id;
    fullKey = created.apiKey;
    readKey = (await t.core.accounts.createKey(accountId, { name: 'dashboard', scope: 'read' })).apiKey;
    const generated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(fullKey),
      payload: { prompt: 'a lighthouse' },
    });
    assert.equal(generated.statusCode, 200, generated.body);
    taskId = (generated.json() as { task_ids: string[] }).task_ids[0] as string;
  });
  after(async () => {
    await t.close();
  });

  test('a read key polls, reads history, status, usage, assets, models and webhook deliveries', async () => {
    const reads = [
      `/api/v1/tasks/${taskId}`,
      `/v1/tasks/${taskId}`,
      `/api/v1/tasks?ids=${taskId}`,
      '/api/v1/history',
      '/api/v1/user/status',
      '/api/v1/user/usage',
      '/api/v1/assets',
      '/api/v1/models',
      '/api/v1/webhooks/deliveries',
      '/v1/models',
      '/v1beta/models',
    ];
    for (const url of reads) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(readKey) });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    }
    // POST /downloads/zip only reads (its ids in a body): open to a read key, like its GET.
    const zip = await t.app.inject({
      method: 'POST',
      url: '/api/v1/downloads/zip',
      headers: bearer(readKey),
      payload: { works: ['gen_none'] },
    });
    assert.equal(assertError(zip, 404, 'not_found').length > 0, true);
  });

  test('a read key is refused, 403 insufficient_scope, on every /api/v1 route that creates, changes or spends', async () => {
    const writes: Array<{ method: 'GET' | 'POST'; url: string; payload?: object }> = [
      { method: 'POST', url: '/api/v1/generate', payload: { prompt: 'no' } },
      { method: 'POST', url: '/v1/generate', payload: { prompt: 'no' } },
      { method: 'POST', url: '/api/v1/upload', payload: { url: 'https://example.com/a.png' } },
      { method: 'POST', url: `/api/v1/tasks/${taskId}/cancel` },
      { method: 'GET', url: '/api/v1/user/webhook-secret' },
      { method: 'POST', url: '/api/v1/user/webhook-secret/rotate', payload: {} },
      { method: 'POST', url: '/api/v1/webhooks/deliveries/whd_x/redeliver' },
    ];
    for (const { method, url, payload } of writes) {
      const response = await t.app.inject({
        method,
        url,
        headers: bearer(readKey),
        ...(payload ? { payload } : {}),
      });
      assert.equal(assertError(response, 403, 'insufficient_scope'), INSUFFICIENT_SCOPE_MESSAGE, url);
    }
    // Nothing was made: the one generation is the full key's.
    const history = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(fullKey) });
    assert.equal((history.json() as { items: unknown[] }).items.length, 1);
    // The full key may do all of it.
    const generate = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(fullKey),
      payload: { prompt: 'yes' },
    });
    assert.equal(generate.statusCode, 200);
  });

  test("on /v1/images a read key is refused in OpenAI's shape", async () => {
    for (const url of ['/v1/images/generations', '/v1/images/edits']) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'api-key': readKey },
        payload: { prompt: 'no', model: 'pro' },
      });
      assert.equal(response.statusCode, 403, url);
      const body = response.json() as { error: Record<string, unknown> };
      assert.equal(body.error.code, 'insufficient_scope');
      assert.equal(body.error.type, 'invalid_request_error');
      assert.equal(body.error.message, INSUFFICIENT_SCOPE_MESSAGE);
      assert.ok('param' in body.error);
    }
  });

  test("on /v1beta a read key is refused in Google's shape", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/pro:generateContent',
      headers: { 'x-goog-api-key': readKey },
      payload: { contents: [{ parts: [{ text: 'no' }] }] },
    });
    assert.equal(response.statusCode, 403);
    const body = response.json() as {
      error: { code: number; status: string; message: string; details: Array<{ reason?: string }> };
    };
    assert.equal(body.error.code, 403);
    assert.equal(body.error.status, 'PERMISSION_DENIED');
    assert.equal(body.error.details[0]?.reason, 'INSUFFICIENT_SCOPE');
  });

  test('a revoked key and an expired key are 401 invalid_api_key, as an unknown one', async () => {
    const { key, apiKey } = await t.core.accounts.createKey(accountId, { name: 'temp' });
    const status = (secret: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(secret) });
    assert.equal((await status(apiKey)).statusCode, 200);
    await t.core.accounts.revokeKey(accountId, key.id);
    assert.equal(assertError(await status(apiKey), 401, 'invalid_api_key'), 'Invalid API key');
    assert.equal(assertError(await status('atl_unknown'), 401, 'invalid_api_key'), 'Invalid API key');

    // Expiry is checked on every request against the core's clock, a kept key's too.
    const expiring = await t.core.accounts.createKey(accountId, {
      name: 'soon',
      expiresAt: clock.now() + 60_000,
    });
    assert.equal((await status(expiring.apiKey)).statusCode, 200);
    assert.equal((await status(expiring.apiKey)).statusCode, 200);
    skew += 60_000;
    assert.equal(assertError(await status(expiring.apiKey), 401, 'invalid_api_key'), 'Invalid API key');
  });
});
