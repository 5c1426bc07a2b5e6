import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Core, createCore } from '../../../src/core.js';
import { type Config, loadConfig } from '../../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../../support/test-database.js';

// A pooled key taken out by an answer comes back by its re-check: one real call after a backoff
// (15 minutes for a spent quota), claimed by one caller only; a failed re-check doubles the wait, a
// passed one puts the key back in service. Time is the test's own clock.

const MINUTE = 60_000;

describe('pooled keys: take-out and re-check', () => {
  const state = { now: Date.UTC(2026, 10, 28, 9) };
  let config: Config;
  let core: Core;
  const pool = () => core.keyPools.pool;
  const names = async () =>
    (await pool().candidates('openai')).map((k) => `${k.name}${k.recheck ? '?' : ''}`);
  const status = async (name: string) =>
    (await core.keyPools.store.list('openai')).find((key) => key.name === name);

  before(async () => {
    config = loadConfig({ ...(await freshTestDataEnv('key-recheck-')), ATELIER_DEMO_ACCOUNT: 'false' });
    core = await createCore(config, { clock: { now: () => state.now } });
    await core.keyPools.store.add('openai', 'a', 'sk-recheck-a-000000000000');
    await core.keyPools.store.add('openai', 'b', 'sk-recheck-b-000000000000');
  });
  after(async () => {
    await core.close(0);
    await removeTestData(config);
  });

  test('out until the backoff; one re-check claimed; failed: twice as long; passed: back in service', async () => {
    const [a] = (await pool().candidates('openai')).filter((key) => key.name === 'a');
    assert.ok(a);
    await pool().learn(a, { kind: 'out', reason: 'no_quota', message: 'You exceeded your current quota' });
    assert.deepEqual(await names(), ['b']);
    assert.equal((await status('a'))?.status, 'no_quota');
    assert.equal((await status('a'))?.recheckAt, state.now + 15 * MINUTE);

    state.now += 15 * MINUTE - 1;
    assert.deepEqual(await names(), ['b'], 'not before its time');
    state.now += 1;
    const withRecheck = await pool().candidates('openai');
    assert.deepEqual(
      withRecheck.map((k) => `${k.name}${k.recheck ? '?' : ''}`),
      ['a?', 'b'],
      'the re-check goes first',
    );
    assert.deepEqual(await names(), ['b'], 'claimed once: the next call does not get it');

    const recheck = withRecheck[0];
    assert.ok(recheck?.recheck);
    await pool().learn(recheck, { kind: 'out', reason: 'no_quota', message: 'still spent' });
    assert.equal((await status('a'))?.recheckAt, state.now + 30 * MINUTE, 'twice as long');
    state.now += 30 * MINUTE;
    const again = (await pool().candidates('openai'))[0];
    assert.equal(again?.name, 'a');
    assert.ok(again?.recheck);
    await pool().learn(again, { kind: 'ok' });
    assert.equal((await status('a'))?.status, 'in_service');
    assert.equal((await status('a'))?.recheckAt, null);
    assert.deepEqual((await names()).sort(), ['a', 'b']);
  });

  test('calls already on their way when a key is taken out count as refusals, not as more take-outs', async () => {
    const [b] = (await pool().candidates('openai')).filter((key) => key.name === 'b');
    assert.ok(b);
    const refusalsBefore = (await status('b'))?.refusals ?? 0;
    for (let i = 0; i < 3; i++)
      await pool().learn(b, { kind: 'out', reason: 'invalid_key', message: 'HTTP 401 invalid_api_key' });
    const metrics = await core.metrics.registry.metrics();
    assert.match(
      metrics,
      /atelier_upstream_key_taken_out_total\{provider="openai",key_name="b",reason="invalid_key"\} 1\n/,
    );
    assert.equal((await status('b'))?.refusals, refusalsBefore + 3);
    assert.equal((await status('b'))?.recheckAt, state.now + 60 * MINUTE, 'an invalid key: an hour');
    // The operator's word puts it back at once.
    await core.keyPools.store.setEnabled('openai', 'b', true);
    assert.equal((await status('b'))?.status, 'in_service');
  });
});
