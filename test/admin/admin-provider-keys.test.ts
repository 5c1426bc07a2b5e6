import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderKeysWire } from '../../src/base/contract/admin-provider-keys.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { assertError } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

// The operator console's API for the pools of upstream keys: every key of every pool with its
// state, added and changed without ever being answered back; the environment's key is one of them.

const ENV_KEY = 'sk-env-key-of-the-deployment-0001';
const ADDED = 'sk-added-key-never-shown-again-02';
const REPLACED = 'sk-replaced-key-never-shown-0003';

describe('operator console API: pools of upstream keys', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let fake: FakeOpenAI;
  const bodies: string[] = [];
  const list = async () => {
    const res = await r.get(`${ADMIN}/provider-keys`, who.op);
    assert.equal(res.statusCode, 200);
    bodies.push(res.body);
    return res.json<ProviderKeysWire>();
  };

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: ENV_KEY });
    t = await createTestApp({
      env: { ATELIER_OPENAI_BASE_URL: fake.baseUrl, ATELIER_OPENAI_API_KEY: ENV_KEY },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  test('the environment key is a key of its pool, named env', async () => {
    const { keys } = await list();
    const env = keys.find((key) => key.provider === 'openai' && key.name === 'env');
    assert.equal(env?.source, 'env');
    assert.equal(env?.status, 'in_service');
    assert.equal(env?.weight, 1);
  });

  test('add, change, disable, enable and remove a key; the key is never answered', async () => {
    const added = await r.send('POST', `${ADMIN}/provider-keys`, who.op, {
      provider: 'openai',
      name: 'org-b',
      key: ADDED,
      weight: 3,
      project: 'team-1',
      max_in_flight: 4,
    });
    assert.equal(added.statusCode, 201, added.body);
    bodies.push(added.body);
    assert.deepEqual(
      (({ name, weight, project, max_in_flight, capacity, status }) => ({
        name,
        weight,
        project,
        max_in_flight,
        capacity,
        status,
      }))(added.json()),
      { name: 'org-b', weight: 3, project: 'team-1', max_in_flight: 4, capacity: 4, status: 'in_service' },
    );
    assertError(
      await r.send('POST', `${ADMIN}/provider-keys`, who.op, { provider: 'openai', name: 'org-b', key: 'x' }),
      409,
      'conflict',
    );
    assertError(
      await r.send('POST', `${ADMIN}/provider-keys`, who.op, { provider: 'local', name: 'x', key: 'y' }),
      400,
      'invalid_request',
    );
    const changed = await r.send('PATCH', `${ADMIN}/provider-keys/openai/org-b`, who.op, {
      key: REPLACED,
      weight: 2,
      max_in_flight: null,
      enabled: false,
    });
    assert.equal(changed.statusCode, 200, changed.body);
    bodies.push(changed.body);
    assert.equal(changed.json().status, 'disabled');
    assert.equal(changed.json().max_in_flight, null);
    const back = await r.send('PATCH', `${ADMIN}/provider-keys/openai/org-b`, who.op, { enabled: true });
    assert.equal(back.json().status, 'in_service');
    assertError(await r.send('DELETE', `${ADMIN}/provider-keys/openai/env`, who.op), 400, 'invalid_request');
    const removed = await r.send('DELETE', `${ADMIN}/provider-keys/openai/org-b`, who.op);
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(
      removed.json<ProviderKeysWire>().keys.map((key) => key.name),
      ['env'],
    );
    assertError(await r.send('DELETE', `${ADMIN}/provider-keys/openai/org-b`, who.op), 404, 'not_found');
    await list();
    for (const body of bodies)
      for (const secret of [ENV_KEY, ADDED, REPLACED])
        assert.ok(!body.includes(secret), 'a key was answered');
  });

  test("the upstreams page's deployment_key follows the pool: a key added, then disabled", async () => {
    const supplied = async () =>
      (await r.get(`${ADMIN}/upstreams`, who.op))
        .json()
        .providers.find((p: { name: string }) => p.name === 'gemini').deployment_key;
    assert.equal(await supplied(), false, 'no Gemini key in the environment');
    const added = await r.send('POST', `${ADMIN}/provider-keys`, who.op, {
      provider: 'gemini',
      name: 'project-a',
      key: 'AIza-pooled-only',
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(await supplied(), true, 'a key added to the pool supplies one');
    const off = await r.send('PATCH', `${ADMIN}/provider-keys/gemini/project-a`, who.op, { enabled: false });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(await supplied(), false, 'a disabled key supplies none');
    const removed = await r.send('DELETE', `${ADMIN}/provider-keys/gemini/project-a`, who.op);
    assert.ok(removed.statusCode < 300, removed.body);
  });

  test('operators only; a read-only key cannot change the pools', async () => {
    assertError(await r.get(`${ADMIN}/provider-keys`, who.plain), 403, 'forbidden');
    assertError(
      await r.send('POST', `${ADMIN}/provider-keys`, who.plain, { provider: 'openai', name: 'n', key: 'k' }),
      403,
      'forbidden',
    );
  });
});
