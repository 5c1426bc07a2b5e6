// Benchmark (not a test): how much a poll costs. Polls read the store only, never the upstream,
// so a single-task poll and a 20-id batch poll should cost a small multiple of a bare /healthz.
// Reported as ratios against /healthz measured in the same run (absolute numbers vary by machine).
// Run: node --import tsx bench/poll-throughput.ts
import { Pool } from 'undici';
import { createTestApp } from '../test/support/test-server.js';

const REQUESTS = 4000;
const CONCURRENCY = 16;

async function measure(pool: Pool, path: string, headers: Record<string, string>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const response = await pool.request({ method: 'GET', path, headers });
        await response.body.dump();
        if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return REQUESTS / seconds;
}

const t = await createTestApp({ listen: true, env: { LOG_LEVEL: 'silent', ATELIER_LOCAL_LATENCY_MS: '50' } });
try {
  const { apiKey } = await t.createAccount();
  const headers = { authorization: `Bearer ${apiKey}` };
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers,
      payload: { prompt: `bench ${i}`, count: 4, imageSize: '1K' },
    });
    ids.push(...(response.json().task_ids as string[]));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const pool = new Pool(t.baseUrl, { connections: CONCURRENCY });
  await measure(pool, '/healthz', {}); // warm-up
  const baseline = await measure(pool, '/healthz', {});
  const single = await measure(pool, `/api/v1/tasks/${ids[0]}`, headers);
  const batch = await measure(pool, `/api/v1/tasks?ids=${ids.slice(0, 20).join(',')}`, headers);
  const history = await measure(pool, '/api/v1/history?limit=20', headers);
  await pool.close();
  const row = (name: string, rate: number) =>
    console.log(
      `  ${name.padEnd(34)} ${rate.toFixed(0).padStart(7)} req/s   ${(rate / baseline).toFixed(2)} × healthz`,
    );
  console.log(`poll throughput (${REQUESTS} requests, ${CONCURRENCY} in flight, one process):`);
  row('GET /healthz (baseline)', baseline);
  row('GET /api/v1/tasks/{id}', single);
  row('GET /api/v1/tasks?ids=<20 ids>', batch);
  row('GET /api/v1/history?limit=20', history);
} finally {
  await t.close();
}
