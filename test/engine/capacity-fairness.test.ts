import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import {
  allEnded,
  capacityConfig,
  capacityOverrides,
  notCompleted,
  submitBurst,
  UPSTREAM_KEY,
} from './capacity-fixtures.js';

// Fair turns on a short pool, and the deadline of a task that never gets a slot. The order is the
// upstream's own: the fake records every call as it arrives.

test('fairness: a light account behind a heavy backlog is served within a few slots, not after the backlog', async (t) => {
  const limit = createUpstreamLimit({ maxInFlight: 2, latencyMs: 200 });
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', { maxInFlight: 2 });
  let core: Core | undefined;
  try {
    core = await createCore(config, capacityOverrides(createOpenAIProvider({ baseUrl: fake.baseUrl })));
    const heavy = await submitBurst(core, 'heavy', 40);
    core.engine.start();
    // The backlog is under way (its first calls made) when the light account submits.
    while (limit.stats.accepted < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const light = await submitBurst(core, 'light', 4);
    const lightRows = await allEnded([core], light.accountId, light.taskIds);
    const heavyRows = await allEnded([core], heavy.accountId, heavy.taskIds);
    const order = fake.calls.map((call) => (String(call.params.prompt).startsWith('light') ? 'L' : 'H'));
    const firstLight = order.indexOf('L');
    const lastLight = order.lastIndexOf('L');
    const heavyBetween = order.slice(firstLight, lastLight).filter((c) => c === 'H').length;
    const heavyBefore = order.slice(0, firstLight).filter((c) => c === 'H').length;
    t.diagnostic(`upstream order: ${order.join('')}`);
    assert.deepEqual(notCompleted([...lightRows, ...heavyRows]), []);
    // Served in turn: the light account's first call comes within a few of the heavy account's
    // (those in flight or on their way when it arrived), and its four calls alternate with the
    // heavy account's instead of waiting for the 36 others.
    assert.ok(heavyBefore <= 6, `${heavyBefore} heavy calls before the first light one`);
    assert.ok(heavyBetween <= 6, `${heavyBetween} heavy calls among the light ones`);
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});

test('a task still waiting for upstream capacity at its deadline fails, saying it waited for capacity', async () => {
  // An upstream that refuses every call (no capacity at all), with a short Retry-After.
  const limit = createUpstreamLimit({ maxInFlight: 0, retryAfterMs: 200 });
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined, {
    ATELIER_TASK_DEADLINE_MS: '3000',
  });
  let core: Core | undefined;
  try {
    core = await createCore(config, capacityOverrides(createOpenAIProvider({ baseUrl: fake.baseUrl })));
    const { account } = await core.accounts.create({ email: 'watcher@example.test' });
    // The record says why the task waits while it does (an extra field of the task record).
    const seenWaiting = new Promise<string | undefined>((resolve) => {
      const unsubscribe = core?.taskEvents.subscribe(account.id, {
        onChange: ({ record }) => {
          if (record.status !== 'queued') return;
          unsubscribe?.();
          resolve(record.waiting_for);
        },
        onResync: () => undefined,
      });
    });
    core.engine.start();
    const { task_ids: taskIds } = await core.generations.generate(account, {
      prompt: 'late',
      model: 'base-image-2',
      imageSize: '1K',
      count: 2,
    });
    assert.equal(await seenWaiting, 'upstream_capacity');
    const rows = await allEnded([core], account.id, taskIds);
    for (const row of rows) {
      assert.equal(row.status, 'failed');
      assert.equal(row.error, 'Task timed out after 3 seconds waiting for upstream capacity (openai)');
      assert.equal(row.attempts, 0, 'a refusal spends no attempt');
      assert.equal(row.started_at, null, 'a task that never started stays queued until it fails');
    }
    assert.ok(limit.stats.refused >= 2);
  } finally {
    await core?.close(500);
    await fake.close();
    await removeTestData(config);
  }
});
