// Benchmark (not a test): four concurrent ~24 MB direct uploads (POST /api/v1/upload, raw body)
// must raise the server's peak RSS by less than 64 MB: bodies stream to temp files, images are
// checked from their headers, and blobs are written from the file.
// The server runs in a child process and reports its own maxRSS, so the client is not counted.
// Run: node --import tsx bench/upload-route-memory.ts
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { bmpOfSize } from '../test/fakes/image-fixtures.js';

const MB = 1024 * 1024;
const CONCURRENCY = 4;
const BUDGET_MB = 64;

if (process.argv[2] === 'server') {
  const { createTestApp } = await import('../test/support/test-server.js');
  const t = await createTestApp({ listen: true, startEngine: false, env: { LOG_LEVEL: 'silent' } });
  const { apiKey } = await t.createAccount();
  process.on('message', (message) => {
    if (message === 'maxrss') process.send?.({ maxRssMb: process.resourceUsage().maxRSS / 1024 });
    if (message === 'stop') void t.close().then(() => process.exit(0));
  });
  globalThis.gc?.();
  process.send?.({
    ready: true,
    baseUrl: t.baseUrl,
    apiKey,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  });
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) =>
      child.once('message', (m) => resolve(m as Record<string, unknown>)),
    );
  const ready = await next();
  const baseUrl = String(ready.baseUrl);
  const headers = { authorization: `Bearer ${String(ready.apiKey)}`, 'content-type': 'image/bmp' };
  // 2880 × 2880 × 24-bit ≈ 23.7 MiB: just under the 25 MB cap, 8.3 MP.
  const bodies = Array.from({ length: CONCURRENCY }, (_, i) => {
    const body = bmpOfSize(2880, 2880);
    body[body.length - 1] = i; // distinct bytes: four stored blobs, not one
    return body;
  });
  const upload = async (body: Buffer) => {
    const response = await request(`${baseUrl}/api/v1/upload`, { method: 'POST', headers, body });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`upload answered ${response.statusCode}: ${text}`);
  };
  await upload(bmpOfSize(64, 64)); // warm-up: code paths loaded before the baseline
  child.send('maxrss');
  const baseline = Number((await next()).maxRssMb);
  const started = Date.now();
  await Promise.all(bodies.map(upload));
  const elapsed = Date.now() - started;
  child.send('maxrss');
  const peak = Number((await next()).maxRssMb);
  child.send('stop');
  const rise = peak - baseline;
  const total = (bodies.reduce((n, b) => n + b.length, 0) / MB).toFixed(1);
  console.log(
    `direct upload memory: ${CONCURRENCY} × ${((bodies[0]?.length ?? 0) / MB) | 0} MB (${total} MB) in ${elapsed} ms`,
  );
  console.log(
    `  server maxRSS ${baseline.toFixed(1)} MB → ${peak.toFixed(1)} MB: rise ${rise.toFixed(1)} MB`,
  );
  console.log(
    `${rise < BUDGET_MB ? 'PASS' : 'FAIL'}: peak RSS rise ${rise.toFixed(1)} MB (budget ${BUDGET_MB} MB)`,
  );
  process.exitCode = rise < BUDGET_MB ? 0 : 1;
}
