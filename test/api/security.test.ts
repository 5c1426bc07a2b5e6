import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** A keyed provider for tests: renders like `local` but needs a key and records the keys it got. */
function keyedProvider(seenKeys: Array<string | null>): ImageProvider {
  const local = createLocalProvider({ clock: systemClock, latencyMs: 100 });
  return {
    ...local,
    name: 'gemini',
    requiresKey: true,
    async submit(request) {
      seenKeys.push(request.apiKey);
      return local.submit(request);
    },
  };
}

describe('security: isolation between accounts, upstream keys, secrets out of logs', () => {
  let t: TestApp;
  const logLines: string[] = [];
  const seenKeys: Array<string | null> = [];
  let alice: { apiKey: string; id: string };
  let bob: { apiKey: string; id: string };
  let aliceTask: string;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
    const catalogPath = join(dir, 'catalog.json');
    writeFileSync(
      catalogPath,
      JSON.stringify({
        models: [
          { id: 'base-image-2', provider: 'local', upstreamModel: 'local-v1', modes: ['text', 'edit'] },
          { id: 'pro', provider: 'gemini', upstreamModel: 'fake-gemini', modes: ['text', 'edit'] },
        ],
      }),
    );
    const config = loadConfig({ ATELIER_LOCAL_LATENCY_MS: '100' });
    const local = createLocalProvider({ clock: systemClock, latencyMs: config.localLatencyMs });
    const keyed = keyedProvider(seenKeys);
    const providers: ProviderRegistry = {
      get: (name) => (name === 'local' ? local : name === 'gemini' ? keyed : undefined),
      names: () => ['local', 'gemini'],
      deploymentKeys: {},
    };
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        logLines.push(chunk.toString());
        callback();
      },
    });
    t = await createTestApp({
      env: { ATELIER_CATALOG: catalogPath },
      overrides: { providers, logger: pino({ level: 'trace' }, sink) },
    });
    alice = await t.createAccount(undefined, { password: 'alice-password-1' });
    bob = await t.createAccount();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(alice.apiKey),
      payload: { prompt: 'alice private prompt', imageSize: '1K' },
    });
    aliceTask = response.json().task_ids[0];
    await pollUntilFinal(t.app, alice.apiKey, aliceTask);
  });
  after(() => t.close());

  test("another account's task, history and assets are invisible", async () => {
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${aliceTask}`, headers: bearer(bob.apiKey) }),
      404,
      'not_found',
    );
    const batch = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks?ids=${aliceTask}`,
      headers: bearer(bob.apiKey),
    });
    assert.deepEqual(batch.json().tasks[0], {
      task_id: aliceTask,
      status: 'failed',
      progress: 0,
      error: 'Task not found',
    });
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/v1/history',
      headers: bearer(bob.apiKey),
    });
    assert.equal(history.json().total, 0);
    assert.ok(!history.body.includes('alice private prompt'));
    const assets = await t.app.inject({ method: 'GET', url: '/api/v1/assets', headers: bearer(bob.apiKey) });
    assert.equal(assets.json().total, 0);
    const aliceAssets = await t.app.inject({
      method: 'GET',
      url: '/api/v1/assets',
      headers: bearer(alice.apiKey),
    });
    assert.equal(aliceAssets.json().total, 1);
    assert.equal(aliceAssets.json().items[0].kind, 'result');
  });

  test('a rotated key stops working at once; the new one works', async () => {
    const account = await t.createAccount();
    const newKey = await t.core.accounts.rotateApiKey(account.id);
    assertError(
      await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(account.apiKey) }),
      401,
      'invalid_api_key',
    );
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(newKey) });
    assert.equal(ok.statusCode, 200);
  });

  test('400 upstream_key_missing when the model needs a key nobody supplied; nothing is created', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(bob.apiKey) })
    ).json().total;
    const message = assertError(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(bob.apiKey),
        payload: { prompt: 'x', model: 'pro' },
      }),
      400,
      'upstream_key_missing',
    );
    assert.match(message, /gemini/);
    const afterTotal = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(bob.apiKey) })
    ).json().total;
    assert.equal(afterTotal, before);
  });

  test("with the account's own key (sealed at rest) the task reaches the provider with that key", async () => {
    const upstreamKey = 'sk-bob-upstream-secret-123';
    await t.core.accounts.setUpstreamKey(bob.id, 'gemini', upstreamKey);
    const row = await t.core.resources.db
      .selectFrom('upstream_keys')
      .selectAll()
      .where('account_id', '=', bob.id)
      .executeTakeFirst();
    assert.ok(row && !row.ciphertext.includes(upstreamKey), 'stored encrypted');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(bob.apiKey),
      payload: { prompt: 'with my key', model: 'pro', imageSize: '1K' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { final } = await pollUntilFinal(t.app, bob.apiKey, response.json().task_ids[0]);
    assert.equal(final.status, 'completed');
    assert.ok(seenKeys.includes(upstreamKey));
  });

  test('upload works for each account separately: the same bytes give the same URL, two asset records', async () => {
    const png = await makePng(9, 9);
    const up = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(key), 'content-type': 'image/png' },
        payload: png,
      });
    const a = await up(alice.apiKey);
    const b = await up(bob.apiKey);
    assert.equal(a.json().url, b.json().url);
    const bobUploads = await t.app.inject({
      method: 'GET',
      url: '/api/v1/assets?kind=upload',
      headers: bearer(bob.apiKey),
    });
    assert.equal(bobUploads.json().total, 1);
  });

  test('no API key, upstream key or password ever appears in a log line', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(alice.apiKey) });
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/status',
      headers: bearer('atl_wrong_key_for_log_check'),
    });
    const logs = logLines.join('\n');
    assert.ok(logs.length > 0, 'logs were captured');
    for (const secret of [
      alice.apiKey,
      bob.apiKey,
      'atl_wrong_key_for_log_check',
      'sk-bob-upstream-secret-123',
      'alice-password-1',
    ]) {
      assert.ok(!logs.includes(secret), `secret leaked into logs: ${secret.slice(0, 8)}…`);
    }
  });
});
