import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { callsHeld, createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import { countedProvider, openCountedDatabase, startVirtualTime } from '../support/virtual-time.js';
import { allEnded, capacityConfig, notCompleted, submitBurst } from './capacity-fixtures.js';

// A pool of two OpenAI keys (issue 39): org-a takes most first choices (weight 9) but allows one
// call at once (its operator's --max-in-flight), org-b takes any number. A burst parks most of its
// tasks on org-a's pool while org-b's ramp climbs; org-b's room to spare must call them back (they
// choose again and take org-b), not leave them behind org-a's one call at a time — before, they
// waited for org-a's releases, one task per five seconds. On virtual time
// (test/support/virtual-time.ts): the seconds are the engine's own, the same on a loaded machine.

const KEY_A = 'sk-lend-key-a-0123456789abcdef';
const KEY_B = 'sk-lend-key-b-0123456789abcdef';

test('an idle key takes the tasks parked on another key of its pool', { timeout: 600_000 }, async (t) => {
  const limitA = createUpstreamLimit({ maxInFlight: 1, latencyMs: 5000 });
  const limitB = createUpstreamLimit({ latencyMs: 5000 });
  const fake = await startFakeOpenAI({
    apiKey: 'sk-unused-by-this-test-0000000',
    keys: { [KEY_A]: { limit: limitA }, [KEY_B]: { limit: limitB } },
  });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  const store = await openCountedDatabase(config.databaseUrl);
  const calls = countedProvider(
    createOpenAIProvider({ baseUrl: fake.baseUrl, now: () => Date.now() }),
    callsHeld,
  );
  // No key in the environment: the pool is the two keys added below.
  const providers: ProviderRegistry = {
    get: (name) => (name === calls.provider.name ? calls.provider : undefined),
    names: () => [calls.provider.name],
    deploymentKeys: {},
  };
  const time = startVirtualTime([store.busy, calls.busy]);
  let core: Core | undefined;
  try {
    core = await createCore(config, { idlePollMs: 200, providers, db: store.db });
    await core.keyPools.store.add('openai', 'org-a', KEY_A, { weight: 9, maxInFlight: 1 });
    await core.keyPools.store.add('openai', 'org-b', KEY_B, { weight: 1 });
    core.engine.start();
    const app = core;
    const startedAt = Date.now();
    const { accountId, taskIds } = await time.still(() => submitBurst(app, 'lend', 40));
    const rows = await allEnded([app], accountId, taskIds);
    const seconds = (Math.max(...limitA.stats.endedAt, ...limitB.stats.endedAt) - startedAt) / 1000;
    t.diagnostic(
      `40 five-second tasks in ${seconds.toFixed(1)} s; org-a ${limitA.stats.accepted} calls (${limitA.stats.maxInFlight} at once), org-b ${limitB.stats.accepted} (${limitB.stats.maxInFlight} at once)`,
    );
    assert.deepEqual(notCompleted(rows), []);
    assert.ok(rows.every((row) => row.attempts === 0));
    assert.equal(limitA.stats.refused + limitB.stats.refused, 0, 'no call past a key limit');
    assert.ok(limitA.stats.maxInFlight <= 1);
    // The tasks parked behind org-a went to org-b at once: nearly the whole burst in flight there
    // together, and the burst ended in about one call's time (before: 10 at once on org-b, and 27
    // tasks at org-a's pace, 138 s).
    assert.ok(
      limitB.stats.maxInFlight >= 30,
      `org-b had ${limitB.stats.maxInFlight} calls in flight at most`,
    );
    assert.ok(seconds <= 15, `the burst took ${seconds.toFixed(1)} s`);
  } finally {
    await core?.close(500);
    await time.stop();
    await fake.close();
    await removeTestData(config);
  }
});
