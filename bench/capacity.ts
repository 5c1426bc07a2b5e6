// Benchmark (not a test): upstream capacity on one node (issue 27), against the OpenAI stand-in
// behind its own limits, in this process, on SQLite, with the default configuration.
// Run: node --expose-gc --import tsx bench/capacity.ts [throughput|inflight|drain|five] …
//   throughput  tasks per second through one node against a zero-latency upstream (1,000 tasks)
//   inflight    upstream calls in flight against a 30 s upstream (2,000 tasks), and RSS per call
//   drain       time to drain 1,000 tasks through an upstream that refuses past 600 calls per
//               minute (no limit configured: learned), as the upstream's ideal over the time taken
//   five        1,000 five-second images on one node with the defaults: time to the last one
import { createCore } from '../src/core.js';
import { createOpenAIProvider } from '../src/providers/openai-provider.js';
import { startFakeOpenAI } from '../src/providers/testing/fake-openai.js';
import { createUpstreamLimit, type UpstreamLimitOptions } from '../src/providers/testing/upstream-limit.js';
import {
  capacityConfig,
  capacityOverrides,
  submitBurst,
  UPSTREAM_KEY,
} from '../test/engine/capacity-fixtures.js';
import { allFinal } from '../test/engine/cluster-fixtures.js';
import { removeTestData } from '../test/support/test-database.js';

const MB = 1024 * 1024;

async function run(
  images: number,
  options: UpstreamLimitOptions,
  measure?: (limit: ReturnType<typeof createUpstreamLimit>) => Promise<void>,
) {
  const limit = createUpstreamLimit(options);
  const fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, limit });
  const config = await capacityConfig('openai', 'gpt-image-1.5', undefined);
  const core = await createCore(config, capacityOverrides(createOpenAIProvider({ baseUrl: fake.baseUrl })));
  try {
    const { accountId, taskIds } = await submitBurst(core, 'bench', images);
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    core.engine.start();
    if (measure) {
      await measure(limit);
      return { seconds: 0, limit, rssBefore, failed: 0 };
    }
    const rows = await allFinal([core], accountId, taskIds);
    const seconds = (performance.now() - started) / 1000;
    return { seconds, limit, rssBefore, failed: rows.filter((r) => r.status !== 'completed').length };
  } finally {
    await core.close(100);
    await fake.close();
    await removeTestData(config);
  }
}

const rows: Record<string, () => Promise<string>> = {
  async throughput() {
    const { seconds, failed } = await run(1000, {});
    return `1000 tasks in ${seconds.toFixed(1)} s: ${(1000 / seconds).toFixed(0)} tasks/s (${failed} not completed)`;
  },
  async inflight() {
    let line = '';
    await run(2000, { latencyMs: 30_000 }, async (limit) => {
      const rssStart = process.memoryUsage().rss;
      let seen = -1;
      // Until the calls in flight stop rising (every leased task has made its call).
      while (limit.stats.maxInFlight !== seen) {
        seen = limit.stats.maxInFlight;
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      globalThis.gc?.();
      const rss = process.memoryUsage().rss;
      line = `${seen} calls in flight on one node; RSS ${(rss / MB).toFixed(0)} MB, +${((rss - rssStart) / MB).toFixed(0)} MB, ${((rss - rssStart) / seen / 1024).toFixed(0)} kB per call in flight (upstream stand-in in the same process)`;
    });
    return line;
  },
  async drain() {
    // A sliding window lets 600 calls go at once and the next ones a minute after: the upstream's
    // own ideal for 1,000 calls is its last call at 60 s. The row is that ideal over the time taken.
    const { seconds, limit, failed } = await run(1000, { perWindow: 600, windowMs: 60_000 });
    return `1000 tasks at 600/min: ${seconds.toFixed(1)} s; the upstream's ideal 60 s / measured = ${(60 / seconds).toFixed(2)} (refused ${limit.stats.refused}, ${failed} not completed)`;
  },
  async five() {
    const { seconds, limit, failed } = await run(1000, { latencyMs: 5000 });
    return `1000 five-second images: ${seconds.toFixed(1)} s, most in flight ${limit.stats.maxInFlight} (${failed} not completed)`;
  },
};

for (const name of process.argv.slice(2)) {
  const row = rows[name];
  if (!row) throw new Error(`unknown row ${name}: ${Object.keys(rows).join(', ')}`);
  console.log(`${name}: ${await row()}`);
}
