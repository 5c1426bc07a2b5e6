import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { type Core, createCore } from '../../src/core.js';
import { startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { removeTestData } from '../support/test-database.js';
import { allEnded, capacityConfig, notCompleted, submitBurst } from './capacity-fixtures.js';

// Two worker nodes on one database (the PostgreSQL run: one PostgreSQL database, each node with its
// own connections; the SQLite run: one file), each with its own adapter, against one upstream that
// counts each key's calls: a key's configured limit holds across the nodes.

const KEY_A = 'sk-cluster-pool-a-0123456789ab';
const KEY_B = 'sk-cluster-pool-b-0123456789ab';

test("two workers on one database never exceed a pooled key's configured limit, and use both keys", async (t) => {
  const limitA = createUpstreamLimit({ maxInFlight: 2, latencyMs: 250 });
  const limitB = createUpstreamLimit({ maxInFlight: 1, latencyMs: 250 });
  const fake = await startFakeOpenAI({
    apiKey: 'sk-unused-0000000000000000',
    keys: { [KEY_A]: { limit: limitA }, [KEY_B]: { limit: limitB } },
  });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  const cores: Core[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const provider = createOpenAIProvider({ baseUrl: fake.baseUrl });
      const providers: ProviderRegistry = {
        get: (name) => (name === provider.name ? provider : undefined),
        names: () => [provider.name],
        deploymentKeys: {},
      };
      cores.push(await createCore(config, { idlePollMs: 200, providers }));
    }
    const [first] = cores;
    if (!first) throw new Error('no core');
    await first.keyPools.store.add('openai', 'a', KEY_A, { maxInFlight: 2 });
    await first.keyPools.store.add('openai', 'b', KEY_B, { maxInFlight: 1 });
    const { accountId, taskIds } = await submitBurst(first, 'cluster', 30);
    for (const core of cores) core.engine.start();
    const rows = await allEnded(cores, accountId, taskIds);
    t.diagnostic(
      `a: ${limitA.stats.accepted} calls, most ${limitA.stats.maxInFlight}; b: ${limitB.stats.accepted}, most ${limitB.stats.maxInFlight}`,
    );
    assert.deepEqual(notCompleted(rows), []);
    assert.equal(limitA.stats.refused + limitB.stats.refused, 0, 'no call past a key limit');
    assert.ok(limitA.stats.maxInFlight <= 2 && limitB.stats.maxInFlight <= 1);
    assert.equal(limitA.stats.accepted + limitB.stats.accepted, 30);
    assert.ok(limitA.stats.accepted > 0 && limitB.stats.accepted > 0, 'both keys served');
  } finally {
    for (const core of cores) await core.close(500);
    await fake.close();
    await removeTestData(config);
  }
});
