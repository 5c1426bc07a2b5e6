import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../../src/base/secrets/secret-box.js';
import { createSigningSecrets } from '../../src/capabilities/webhooks/signing-secrets.js';
import { createWebhooksRepository } from '../../src/capabilities/webhooks/webhooks-repository.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { sessionCookieOf } from '../support/website-session.js';

// Issue 25, item 15: the webhook signing secret can be rotated; during the grace period every
// delivery carries a signature made with each secret, and either verifies it.

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver: answers 204 and hands each callback to whoever waits for the next one. */
async function startReceiver() {
  const waiting: Array<(received: Received) => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      waiting.shift()?.({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hooks`,
    next: () => new Promise<Received>((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Whether the Standard Webhooks reference library, holding `secret`, accepts the callback. */
function verifies(secret: string, { headers, body }: Received): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

describe('webhook signing secret rotation', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    receiver = await startReceiver();
    t = await createTestApp({
      env: { ATELIER_UPLOAD_ALLOWED_HOSTS: receiver.host, ATELIER_LOCAL_LATENCY_MS: '50' },
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const secretOf = async (apiKey: string) =>
    (
      await t.app.inject({ method: 'GET', url: '/api/v1/user/webhook-secret', headers: bearer(apiKey) })
    ).json().secret as string;
  const rotate = (apiKey: string, payload?: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/user/webhook-secret/rotate',
      headers: bearer(apiKey),
      ...(payload ? { payload } : {}),
    });
  /** One delivery: a generation with a callback, and the callback it brings. */
  const deliver = async (apiKey: string) => {
    const arrives = receiver.next();
    const generated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'a rotated lighthouse', imageSize: '1K', callbackUrl: receiver.url },
    });
    assert.equal(generated.statusCode, 200, generated.body);
    return arrives;
  };

  test('during the grace period deliveries carry both signatures, and either secret verifies them', async () => {
    const { apiKey } = await t.createAccount();
    const old = await secretOf(apiKey);
    const before = Date.now();
    const response = await rotate(apiKey);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const { secret, previous_secret_expires_at: until } = response.json();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(secret, old);
    assert.ok(until >= before + 24 * 3600_000 && until <= Date.now() + 24 * 3600_000, String(until));
    assert.equal(await secretOf(apiKey), secret);

    const callback = await deliver(apiKey);
    const signatures = String(callback.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    for (const signature of signatures) assert.match(signature, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(verifies(secret, callback), 'the new secret verifies');
    assert.ok(verifies(old, callback), 'the replaced secret verifies during its grace');
    assert.ok(!verifies(`whsec_${randomBytes(32).toString('base64')}`, callback));
  });

  test('grace_seconds: 0 stops the replaced secret at once; a second rotation ends the first grace', async () => {
    const { apiKey } = await t.createAccount();
    const first = await secretOf(apiKey);
    const second = (await rotate(apiKey)).json().secret as string;
    const now = await rotate(apiKey, { grace_seconds: 0 });
    assert.equal(now.statusCode, 200, now.body);
    assert.equal(now.json().previous_secret_expires_at, null);
    const third = now.json().secret as string;
    const callback = await deliver(apiKey);
    assert.equal(String(callback.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifies(third, callback));
    assert.ok(!verifies(second, callback));
    assert.ok(!verifies(first, callback));
  });

  test('a bad grace_seconds is 400 naming it; without a key 401; rotating one account leaves the others alone', async () => {
    const { apiKey } = await t.createAccount();
    const other = await t.createAccount();
    const theirs = await secretOf(other.apiKey);
    for (const grace of [-1, 1.5, 'soon', 7 * 24 * 3600 + 1])
      assert.match(
        assertError(await rotate(apiKey, { grace_seconds: grace }), 400, 'invalid_request'),
        /grace_seconds/,
      );
    assertError(
      await t.app.inject({ method: 'POST', url: '/api/v1/user/webhook-secret/rotate' }),
      401,
      'unauthorized',
    );
    assert.equal((await rotate(apiKey, { grace_seconds: 60 })).statusCode, 200);
    assert.equal(await secretOf(other.apiKey), theirs);
  });

  test("the website's signed-in session rotates it (same origin only), as its Rotate button does", async () => {
    const password = 'correct horse battery';
    const { apiKey, email } = await t.createAccount(undefined, { password });
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: t.baseUrl },
      payload: { email, password },
    });
    assert.equal(signIn.statusCode, 200, signIn.body);
    const cookie = sessionCookieOf(signIn);
    const old = await secretOf(apiKey);
    const fromSite = (origin: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/user/webhook-secret/rotate',
        headers: { cookie, origin },
      });
    assertError(await fromSite('https://evil.example'), 403, 'forbidden');
    assert.equal(await secretOf(apiKey), old);
    const rotated = await fromSite(t.baseUrl);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(await secretOf(apiKey), rotated.json().secret);
  });

  test('the replaced secret stops signing when its grace ends (injected clock)', async () => {
    const { id } = await t.createAccount();
    let now = 1_000_000;
    const clock = { now: () => now };
    const secrets = createSigningSecrets({
      repository: createWebhooksRepository({ db: t.core.resources.db, clock }),
      secrets: createSecretBox(randomBytes(32)),
      clock,
    });
    const old = await secrets.current(id);
    const { secret, previousExpiresAt } = await secrets.rotate(id, 3600);
    assert.equal(previousExpiresAt, now + 3600_000);
    assert.deepEqual(await secrets.signing(id), [secret, old]);
    now += 3600_000 - 1;
    assert.deepEqual(await secrets.signing(id), [secret, old]);
    now += 1;
    assert.deepEqual(await secrets.signing(id), [secret]);
  });
});
