// The load generator's process: runs one autocannon job per request from the orchestrator.
import autocannon from 'autocannon';
import { serveIpc } from './ipc-child.js';

serveIpc(async (job) => {
  const result = await autocannon({
    url: String(job.url),
    connections: Number(job.connections),
    pipelining: 1,
    ...(job.amount ? { amount: Number(job.amount) } : { duration: Number(job.seconds) }),
    method: (job.method as 'GET' | 'POST' | undefined) ?? 'GET',
    headers: job.headers as Record<string, string>,
    ...(job.body ? { body: String(job.body) } : {}),
    timeout: 30,
  });
  const answered = result['2xx'] + result.non2xx;
  return {
    requests: answered,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: result.duration,
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
  };
});
