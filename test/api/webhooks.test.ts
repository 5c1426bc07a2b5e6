import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DeliveryItem } from '../../src/capabilities/webhooks/webhooks-service.js';
import { answer, scriptedResolver } from '../fakes/outbound/loopback.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { type Received, startReceiver, verify, waitFor } from '../support/scripted-webhook-receiver.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

type Delivery = DeliveryItem;

describe('webhooks', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let rebinding: ReturnType<typeof scriptedResolver>;
  let apiKey: string;
  let secret: string;

  before(async () => {
    receiver = await startReceiver();
    // A name that resolves to a public address at submit and to a private one afterwards.
    rebinding = scriptedResolver({
      'rebind.example.test': [[answer('93.184.216.34')], [answer('10.0.0.7')]],
    });
    t = await createTestApp({
      env: {
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
        ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100',
        ATELIER_LOCAL_LATENCY_MS: '100',
      },
      overrides: { lookup: rebinding.lookup, webhookAttemptTimeoutMs: 500 },
    });
    ({ apiKey } = await t.createAccount());
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/webhook-secret',
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    secret = response.json().secret;
  });
  after(async () => {
    await t.close();
    await receiver.server.close();
  });

  const generate = (key: string, body: object) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(key), payload: body });
  const deliveries = async (key: string, query = '') => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/deliveries${query}`,
      headers: bearer(key),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as {
      items: Delivery[];
      total: number;
      page: number;
      limit: number;
      total_pages: number;
    };
  };
  const deliveryOf = async (key: string, taskId: string) =>
    (await deliveries(key, '?limit=50')).items.find((d) => d.task_id === taskId);
  const settled = (key: string, taskId: string) =>
    waitFor(`delivery of ${taskId}`, async () => {
      const delivery = await deliveryOf(key, taskId);
      return delivery && delivery.state !== 'pending' ? delivery : undefined;
    });

  test('the secret is whsec_ + base64 of 32 bytes, stable across reads, and per account', async () => {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/webhook-secret',
      headers: bearer(apiKey),
    });
    assert.equal(again.json().secret, secret);
    const other = await t.createAccount();
    const theirs = await t.app.inject({
      method: 'GET',
      url: '/v1/user/webhook-secret',
      headers: bearer(other.apiKey),
    });
    assert.notEqual(theirs.json().secret, secret);
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/user/webhook-secret' }),
      401,
      'unauthorized',
    );
  });

  test('a receiver that fails twice gets the same signed message three times, then it succeeds', async () => {
    const url = receiver.answer('/hooks/flaky', 500, 500, 204);
    const response = await generate(apiKey, { prompt: 'a lighthouse', imageSize: '1K', callbackUrl: url });
    assert.equal(response.statusCode, 200, response.body);
    const [taskId] = response.json().task_ids as string[];
    const delivery = await settled(apiKey, taskId ?? '');

    assert.equal(delivery.state, 'succeeded');
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.last_status_code, 204);
    assert.equal(delivery.last_error, null);
    assert.equal(delivery.type, 'task.completed');
    assert.equal(delivery.url, url);
    assert.equal(delivery.next_attempt_at, null);
    assert.ok(delivery.delivered_at !== null && delivery.delivered_at >= delivery.created_at);
    assert.match(delivery.id, /^msg_/);

    const requests = receiver.at('/hooks/flaky');
    assert.equal(requests.length, 3);
    const task = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskId}`,
      headers: bearer(apiKey),
    });
    for (const request of requests) {
      // The same message every time: receivers deduplicate on webhook-id.
      assert.equal(request.headers['webhook-id'], delivery.id);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.body, requests[0]?.body);
      const payload = verify(secret, request);
      assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
      assert.equal(payload.type, 'task.completed');
      assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
      assert.deepEqual(payload.data, task.json());
    }
    // Another account's secret does not verify them.
    const other = await t.createAccount();
    const theirs = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/webhook-secret',
      headers: bearer(other.apiKey),
    });
    assert.throws(() => verify(theirs.json().secret, requests[0] as Received));
  });

  test('a failed task is delivered as task.failed with the error in the record', async () => {
    const url = receiver.answer('/hooks/failed');
    const response = await generate(apiKey, { prompt: 'doomed [[fail]]', imageSize: '1K', callbackUrl: url });
    assert.equal(response.statusCode, 200, response.body);
    const [taskId] = response.json().task_ids as string[];
    const delivery = await settled(apiKey, taskId ?? '');
    assert.equal(delivery.state, 'succeeded');
    assert.equal(delivery.type, 'task.failed');
    const [request] = receiver.at('/hooks/failed');
    const payload = verify(secret, request as Received);
    assert.equal(payload.type, 'task.failed');
    assert.equal(payload.data.status, 'failed');
    assert.equal(typeof payload.data.error, 'string');
  });

  test('every task of a generation reports to the callback, one delivery each', async () => {
    const url = receiver.answer('/hooks/many');
    const response = await generate(apiKey, {
      prompt: 'three cats',
      imageSize: '1K',
      count: 3,
      callbackUrl: url,
    });
    const taskIds = response.json().task_ids as string[];
    for (const taskId of taskIds) assert.equal((await settled(apiKey, taskId)).state, 'succeeded');
    const seen = receiver.at('/hooks/many').map((r) => verify(secret, r).data.task_id);
    assert.deepEqual(seen.sort(), [...taskIds].sort());
  });

  test('a redirect is a failed attempt, never followed; after the last slot the delivery fails', async () => {
    const target = receiver.answer('/hooks/moved-here');
    const url = receiver.answer('/hooks/redirect', { status: 307, headers: { location: target } });
    const response = await generate(apiKey, { prompt: 'a moving van', imageSize: '1K', callbackUrl: url });
    const [taskId] = response.json().task_ids as string[];
    const delivery = await settled(apiKey, taskId ?? '');
    assert.equal(delivery.state, 'failed');
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.last_status_code, 307);
    assert.match(delivery.last_error ?? '', /redirect/);
    assert.equal(delivery.next_attempt_at, null);
    assert.equal(delivery.delivered_at, null);
    assert.equal(receiver.at('/hooks/redirect').length, 3);
    assert.equal(receiver.at('/hooks/moved-here').length, 0);
  });

  test('a receiver that does not answer in time is a failed attempt with a clear error', async () => {
    const url = `${receiver.origin}/hang`;
    const response = await generate(apiKey, { prompt: 'a slow reader', imageSize: '1K', callbackUrl: url });
    const [taskId] = response.json().task_ids as string[];
    const delivery = await settled(apiKey, taskId ?? '');
    assert.equal(delivery.state, 'failed');
    assert.equal(delivery.last_status_code, null);
    assert.match(delivery.last_error ?? '', /did not answer within 0\.5 s/);
  });

  test('the address is checked again at delivery time: a name rebound to a private address is refused', async () => {
    const response = await generate(apiKey, {
      prompt: 'rebinding',
      imageSize: '1K',
      callbackUrl: 'http://rebind.example.test/hook',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [taskId] = response.json().task_ids as string[];
    const delivery = await settled(apiKey, taskId ?? '');
    assert.equal(delivery.state, 'failed');
    assert.equal(delivery.last_status_code, null);
    assert.equal(
      delivery.last_error,
      'callbackUrl does not point to a public address; to allow it in development, add "rebind.example.test:80" to ATELIER_UPLOAD_ALLOWED_HOSTS',
    );
    assert.ok(rebinding.calls.filter((name) => name === 'rebind.example.test').length >= 2);
  });

  test('a callbackUrl that is not allowed is 400 invalid_request naming it, and nothing is created', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    const cases: Array<[unknown, RegExp]> = [
      ['http://10.0.0.1/hook', /callbackUrl does not point to a public address/],
      ['http://169.254.169.254/latest/meta-data', /callbackUrl does not point to a public address/],
      ['http://[::ffff:a9fe:a9fe]/hook', /callbackUrl does not point to a public address/],
      ['http://127.0.0.1/hook', /callbackUrl does not point to a public address/],
      [`http://127.0.0.1:${receiver.server.port + 1}/hook`, /callbackUrl must use the default port/],
      ['http://user:pw@hooks.example.com/hook', /callbackUrl must not contain credentials/],
      ['ftp://hooks.example.com/hook', /callbackUrl must be an http\(s\) URL/],
      ['/relative/hook', /callbackUrl is not an absolute URL/],
      [42, /callbackUrl must be a string/],
      ['http://nowhere.invalid/hook', /callbackUrl .*could not be resolved/],
    ];
    for (const [callbackUrl, message] of cases) {
      const response = await generate(apiKey, { prompt: 'never made', imageSize: '1K', callbackUrl });
      assert.match(assertError(response, 400, 'invalid_request'), message, String(callbackUrl));
    }
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(after.json().total, before.json().total);
  });

  test('cancel delivers task.failed with error "Canceled"', async () => {
    const slow = await createTestApp({
      env: {
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
        ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0',
        ATELIER_LOCAL_LATENCY_MS: '60000',
      },
    });
    try {
      const account = await slow.createAccount();
      const url = receiver.answer('/hooks/canceled');
      const generated = await slow.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(account.apiKey),
        payload: { prompt: 'never finished', imageSize: '1K', callbackUrl: url },
      });
      const [taskId] = generated.json().task_ids as string[];
      const canceled = await slow.app.inject({
        method: 'POST',
        url: `/api/v1/tasks/${taskId}/cancel`,
        headers: bearer(account.apiKey),
      });
      assert.equal(canceled.statusCode, 200, canceled.body);
      const request = await waitFor('canceled webhook', async () => receiver.at('/hooks/canceled')[0]);
      const theirSecret = (
        await slow.app.inject({
          method: 'GET',
          url: '/api/v1/user/webhook-secret',
          headers: bearer(account.apiKey),
        })
      ).json().secret;
      const payload = verify(theirSecret, request);
      assert.equal(payload.type, 'task.failed');
      assert.deepEqual(payload.data, {
        task_id: taskId,
        status: 'failed',
        progress: payload.data.progress,
        error: 'Canceled',
      });
    } finally {
      await slow.close();
    }
  });

  test('deliveries: paged newest first, own only; redeliver sends the same message again; 404 for others', async () => {
    const url = receiver.answer('/hooks/listed');
    const first = await generate(apiKey, { prompt: 'first', imageSize: '1K', callbackUrl: url });
    const [firstTask] = first.json().task_ids as string[];
    await settled(apiKey, firstTask ?? '');
    const second = await generate(apiKey, { prompt: 'second', imageSize: '1K', callbackUrl: url });
    const [secondTask] = second.json().task_ids as string[];
    const delivered = await settled(apiKey, secondTask ?? '');

    const page = await deliveries(apiKey, '?page=1&limit=1');
    assert.equal(page.page, 1);
    assert.equal(page.limit, 1);
    assert.ok(page.total >= 2);
    assert.equal(page.total_pages, page.total);
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0]?.task_id, secondTask);
    assert.deepEqual(Object.keys(page.items[0] ?? {}).sort(), [
      'attempts',
      'created_at',
      'delivered_at',
      'id',
      'last_error',
      'last_status_code',
      'next_attempt_at',
      'state',
      'task_id',
      'type',
      'url',
    ]);
    assert.equal((await deliveries(apiKey, '?page=2&limit=1')).items[0]?.task_id, firstTask);
    assertError(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/webhooks/deliveries?limit=51',
        headers: bearer(apiKey),
      }),
      400,
      'invalid_request',
    );
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/deliveries' }),
      401,
      'unauthorized',
    );

    const stranger = await t.createAccount();
    assert.deepEqual((await deliveries(stranger.apiKey)).items, []);
    assertError(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/deliveries/${delivered.id}/redeliver`,
        headers: bearer(stranger.apiKey),
      }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/deliveries/msg_nope/redeliver',
        headers: bearer(apiKey),
      }),
      404,
      'not_found',
    );

    const countBefore = receiver.at('/hooks/listed').length;
    const redeliver = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${delivered.id}/redeliver`,
      headers: bearer(apiKey),
    });
    assert.equal(redeliver.statusCode, 200, redeliver.body);
    assert.equal(redeliver.json().id, delivered.id);
    assert.equal(redeliver.json().attempts, 0);
    const again = await waitFor('redelivery', async () => {
      const d = await deliveryOf(apiKey, secondTask ?? '');
      return d?.state === 'succeeded' && receiver.at('/hooks/listed').length > countBefore ? d : undefined;
    });
    assert.equal(again.attempts, 1);
    const last = receiver.at('/hooks/listed').at(-1) as Received;
    assert.equal(last.headers['webhook-id'], delivered.id);
    assert.equal(verify(secret, last).data.task_id, secondTask);
  });
});
