import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { type Core, createCore } from '../../src/core.js';
import type { Config } from '../../src/infra/config/config.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit, type UpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import { allEnded, capacityConfig, notCompleted, submitBurst } from './capacity-fixtures.js';

// Pools of upstream keys (issue 39), one scenario after another on one long-lived app: the
// deployment's keys of OpenAI, each an organization of its own behind one loopback OpenAI (each key
// with its own limit, counted by the upstream), chosen by weight and free capacity, taken out on
// "invalid key" and "no quota left", never shown after they are set.

const KEY_A = 'sk-pool-key-a-0123456789abcdef';
const KEY_B = 'sk-pool-key-b-0123456789abcdef';
const KEY_DEAD = 'sk-pool-key-revoked-0123456789';
const KEY_SPENT = 'sk-pool-key-spent-0123456789ab';
const SECRETS = [KEY_A, KEY_B, KEY_DEAD, KEY_SPENT];

/** The most calls in flight at once across both keys, from the upstream's own start and end times. */
function mostAtOnce(limits: UpstreamLimit[]): number {
  const events = limits.flatMap((limit) => [
    ...limit.stats.acceptedAt.map((at) => ({ at, step: 1 })),
    ...limit.stats.endedAt.map((at) => ({ at, step: -1 })),
  ]);
  events.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const event of events) {
    now += event.step;
    most = Math.max(most, now);
  }
  return most;
}

/** Requests the upstream received with each key since `from` (its n-th request on), refused ones too. */
function callsByKey(fake: FakeOpenAI, from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of fake.requests.slice(from)) {
    const key = String(request.headers.authorization).replace(/^Bearer /, '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe('pools of upstream keys on one app', () => {
  const limitA = createUpstreamLimit({ maxInFlight: 2, latencyMs: 300 });
  const limitB = createUpstreamLimit({ maxInFlight: 2, latencyMs: 300 });
  let fake: FakeOpenAI;
  let config: Config;
  let core: Core;
  const keys = () => core.keyPools.store;

  before(async () => {
    fake = await startFakeOpenAI({
      apiKey: 'sk-unused-by-these-tests-000000',
      keys: { [KEY_A]: { limit: limitA }, [KEY_B]: { limit: limitB }, [KEY_SPENT]: { quotaSpent: true } },
    });
    config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
    const provider = createOpenAIProvider({ baseUrl: fake.baseUrl });
    // No key in the environment: the pool is the keys added below.
    const providers: ProviderRegistry = {
      get: (name) => (name === provider.name ? provider : undefined),
      names: () => [provider.name],
      deploymentKeys: {},
    };
    core = await createCore(config, { idlePollMs: 200, providers });
    core.engine.start();
  });

  after(async () => {
    await core.close(500);
    await fake.close();
    await removeTestData(config);
  });

  test('two keys of 2 calls each serve 4 in flight, neither past its limit', async (t) => {
    await keys().add('openai', 'org-a', KEY_A, { maxInFlight: 2 });
    await keys().add('openai', 'org-b', KEY_B, { maxInFlight: 2 });
    const { accountId, taskIds } = await submitBurst(core, 'pair', 16);
    const rows = await allEnded([core], accountId, taskIds);
    const most = mostAtOnce([limitA, limitB]);
    t.diagnostic(`most at once ${most}; per key ${limitA.stats.maxInFlight}, ${limitB.stats.maxInFlight}`);
    assert.deepEqual(notCompleted(rows), []);
    assert.equal(limitA.stats.refused + limitB.stats.refused, 0, 'no call past a key limit');
    assert.ok(limitA.stats.maxInFlight <= 2 && limitB.stats.maxInFlight <= 2);
    assert.equal(most, 4, 'both keys served at once');
    assert.ok(rows.every((row) => row.upstream_key_id !== null));
  });

  test('weights spread tasks: 3 to 1', async () => {
    for (const limit of [limitA, limitB]) {
      limit.options.maxInFlight = undefined;
      limit.options.latencyMs = 20;
    }
    await keys().update('openai', 'org-a', { weight: 3, maxInFlight: null });
    await keys().update('openai', 'org-b', { weight: 1, maxInFlight: null });
    const from = fake.requests.length;
    const { accountId, taskIds } = await submitBurst(core, 'weights', 40);
    assert.deepEqual(notCompleted(await allEnded([core], accountId, taskIds)), []);
    const counts = callsByKey(fake, from);
    assert.deepEqual([counts.get(KEY_A), counts.get(KEY_B)], [30, 10]);
  });

  test('a disabled key gets nothing; enabled again, it serves again', async () => {
    await keys().setEnabled('openai', 'org-b', false);
    let from = fake.requests.length;
    let burst = await submitBurst(core, 'disabled', 12);
    assert.deepEqual(notCompleted(await allEnded([core], burst.accountId, burst.taskIds)), []);
    assert.equal(callsByKey(fake, from).get(KEY_B), undefined);
    assert.equal(callsByKey(fake, from).get(KEY_A), 12);
    await keys().setEnabled('openai', 'org-b', true);
    from = fake.requests.length;
    burst = await submitBurst(core, 'enabled', 8);
    assert.deepEqual(notCompleted(await allEnded([core], burst.accountId, burst.taskIds)), []);
    assert.ok((callsByKey(fake, from).get(KEY_B) ?? 0) > 0);
  });

  test('an invalid key and a spent quota are taken out with their reason; their tasks complete on the others', async () => {
    // Heavier than both others together: most first choices go to them until they are out.
    await keys().add('openai', 'revoked', KEY_DEAD, { weight: 10 });
    await keys().add('openai', 'spent', KEY_SPENT, { weight: 10 });
    const from = fake.requests.length;
    const { accountId, taskIds } = await submitBurst(core, 'takeout', 24);
    const rows = await allEnded([core], accountId, taskIds);
    assert.deepEqual(notCompleted(rows), []);
    assert.ok(
      rows.every((row) => row.attempts === 0),
      'no attempt spent on a dead key',
    );
    const counts = callsByKey(fake, from);
    assert.ok((counts.get(KEY_DEAD) ?? 0) >= 1, 'the revoked key was tried');
    assert.equal((counts.get(KEY_A) ?? 0) + (counts.get(KEY_B) ?? 0), 24);
    const states = new Map((await core.keyPools.states()).map((key) => [key.name, key]));
    assert.equal(states.get('revoked')?.status, 'invalid_key');
    assert.match(states.get('revoked')?.last_error ?? '', /HTTP 401 invalid_api_key/);
    assert.equal(states.get('spent')?.status, 'no_quota');
    assert.ok((states.get('spent')?.recheck_at ?? 0) > Date.now(), 'a re-check is scheduled');
    assert.equal(states.get('org-a')?.status, 'in_service');
    // Out of service: the next burst never calls them.
    const later = fake.requests.length;
    const next = await submitBurst(core, 'after', 8);
    assert.deepEqual(notCompleted(await allEnded([core], next.accountId, next.taskIds)), []);
    const afterCounts = callsByKey(fake, later);
    assert.equal((afterCounts.get(KEY_DEAD) ?? 0) + (afterCounts.get(KEY_SPENT) ?? 0), 0);
    // The metrics say so, per key.
    const metrics = await core.metrics.registry.metrics();
    assert.match(metrics, /atelier_upstream_key_in_service\{provider="openai",key_name="revoked"\} 0/);
    assert.match(metrics, /atelier_upstream_key_in_service\{provider="openai",key_name="org-a"\} 1/);
    assert.match(
      metrics,
      /atelier_upstream_key_taken_out_total\{provider="openai",key_name="spent",reason="no_quota"\} 1/,
    );
    // The operator puts one back: it serves again.
    await keys().setEnabled('openai', 'spent', true);
    assert.equal((await keys().list('openai')).find((key) => key.name === 'spent')?.status, 'in_service');
  });

  test('an account with its own upstream key still uses its own', async () => {
    await keys().setEnabled('openai', 'spent', false);
    const { account } = await core.accounts.create({ email: `own-${Date.now()}@example.test` });
    await core.accounts.setUpstreamKey(account.id, 'openai', KEY_B);
    const from = fake.requests.length;
    const { task_ids } = await core.generations.generate(account, {
      prompt: 'own key',
      model: 'base-image-2',
      imageSize: '1K',
      count: 3,
    });
    const rows = await allEnded([core], account.id, task_ids);
    assert.deepEqual(notCompleted(rows), []);
    assert.deepEqual([...callsByKey(fake, from)], [[KEY_B, 3]]);
    assert.ok(
      rows.every((row) => row.upstream_key_id === null),
      'no pooled key spent',
    );
  });

  test('no secret appears in any state, metric or log of the pools', async () => {
    const text = JSON.stringify([await core.keyPools.states(), await keys().list()]);
    const metrics = await core.metrics.registry.metrics();
    for (const secret of SECRETS) {
      assert.ok(!text.includes(secret), 'a state names a key');
      assert.ok(!metrics.includes(secret), 'a metric names a key');
    }
  });
});
