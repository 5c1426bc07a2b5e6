// Benchmark (not a test): four concurrent 25 MB downloads through the safe fetcher must raise the
// process's peak RSS by less than 64 MB, because bodies stream to temp files instead of memory.
// Run: node --expose-gc --import tsx bench/upload-memory.ts
// The serving side runs in a child process so that its buffers are not counted here.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { createSafeFetcher } from '../src/infra/outbound/safe-fetcher.js';

const MB = 1024 * 1024;
const BODY_BYTES = 25 * MB;
const CONCURRENCY = 4;
const BUDGET_MB = 64;

// Streams BODY_BYTES from one 64 kB buffer with backpressure: identity with a length, chunked
// without one, or gzip-encoded (so the fetcher decodes 25 MB from ~25 kB on the wire).
const SERVER_SOURCE = `
const http = require('node:http');
const zlib = require('node:zlib');
const total = ${BODY_BYTES};
const block = Buffer.alloc(64 * 1024, 7);
const gzipped = zlib.gzipSync(Buffer.alloc(total, 7));
http.createServer((req, res) => {
  if (req.url === '/small' || req.url === '/small-gzip') {
    const gzip = req.url === '/small-gzip';
    res.writeHead(200, gzip ? { 'content-encoding': 'gzip' } : {});
    res.end(gzip ? zlib.gzipSync(block) : block);
    return;
  }
  if (req.url === '/gzip') {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': gzipped.length });
    res.end(gzipped);
    return;
  }
  res.writeHead(200, req.url === '/chunked' ? {} : { 'content-length': total });
  let left = total;
  const pump = () => {
    while (left > 0) {
      const chunk = left >= block.length ? block : block.subarray(0, left);
      left -= chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
`;

async function startServer(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return { port: Number(line), child };
  throw new Error('benchmark server did not start');
}

function rssMb(): number {
  return process.memoryUsage.rss() / MB;
}

function maxRssMb(): number {
  return process.resourceUsage().maxRSS / 1024; // maxRSS is in kilobytes
}

function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs `work` while sampling RSS every 2 ms; returns the peak rise over the RSS measured just before. */
async function measure(
  work: () => Promise<void>,
): Promise<{ baseline: number; peak: number; rise: number; buffers: number; heap: number; ms: number }> {
  settle();
  const baseline = rssMb();
  const buffersBaseline = process.memoryUsage().arrayBuffers / MB;
  let peak = baseline;
  const heapBaseline = process.memoryUsage().heapTotal / MB;
  let buffers = 0;
  let heap = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
    const usage = process.memoryUsage();
    buffers = Math.max(buffers, usage.arrayBuffers / MB - buffersBaseline);
    heap = Math.max(heap, usage.heapTotal / MB - heapBaseline);
  }, 2);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  return { baseline, peak, rise: peak - baseline, buffers, heap, ms };
}

const { port, child } = await startServer();
const tempDir = await mkdtemp(join(tmpdir(), 'atelier-bench-'));
const fetcher = createSafeFetcher({ allowedHosts: [`127.0.0.1:${port}`], tempDir, totalTimeoutMs: 120_000 });
type Result = Awaited<ReturnType<typeof measure>> & { scenario: string };
const results: Result[] = [];

async function downloadAll(path: string): Promise<void> {
  const files = await Promise.all(
    Array.from({ length: CONCURRENCY }, () =>
      fetcher.fetchToFile(`http://127.0.0.1:${port}${path}`, { subject: 'source_url' }),
    ),
  );
  for (const file of files) {
    const { size } = await stat(file.path);
    if (file.bytes !== BODY_BYTES || size !== BODY_BYTES)
      throw new Error(`short download: ${file.bytes}/${size}`);
    await file.cleanup();
  }
}

try {
  const startRss = rssMb();
  // Warm-up: one small download of each kind, so that loading undici's HTTP parser (WebAssembly),
  // zlib and the fs paths is not counted: a running server has paid for that long before.
  for (const path of ['/small', '/small-gzip']) {
    const file = await fetcher.fetchToFile(`http://127.0.0.1:${port}${path}`, { subject: 'source_url' });
    await file.cleanup();
  }
  const maxRssBefore = maxRssMb();

  for (const [scenario, path] of [
    ['4 × 25 MB, Content-Length', '/raw'],
    ['4 × 25 MB, chunked (no length)', '/chunked'],
    ['4 × 25 MB decoded from gzip', '/gzip'],
  ] as const) {
    results.push({ scenario, ...(await measure(() => downloadAll(path))) });
  }
  const maxRssAfter = maxRssMb();
  const maxRssRise = maxRssAfter - maxRssBefore;

  // Control, run last because it inflates the peak: the same four bodies buffered in memory, to
  // show the meter does see 100 MB when it is really spent.
  const control = await measure(async () => {
    const bodies = await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const { body } = await request(`http://127.0.0.1:${port}/raw`);
        return Buffer.from(await body.arrayBuffer());
      }),
    );
    if (bodies.some((b) => b.length !== BODY_BYTES)) throw new Error('control download short');
  });

  console.log(
    `safe-fetch memory benchmark (node ${process.version}, gc ${'gc' in globalThis ? 'exposed' : 'not exposed'})`,
  );
  for (const r of results) {
    console.log(
      `  ${r.scenario.padEnd(34)} baseline ${r.baseline.toFixed(1)} MB  peak ${r.peak.toFixed(1)} MB  ` +
        `rise ${r.rise.toFixed(1)} MB  (Buffers +${r.buffers.toFixed(1)}, V8 heap +${r.heap.toFixed(1)})  (${r.ms.toFixed(0)} ms)`,
    );
  }
  console.log(`  process maxRSS rise over all three scenarios: ${maxRssRise.toFixed(1)} MB`);
  console.log(
    `  whole run incl. warm-up: RSS ${startRss.toFixed(1)} MB before, maxRSS ${maxRssAfter.toFixed(1)} MB ` +
      `(rise ${(maxRssAfter - startRss).toFixed(1)} MB)`,
  );
  console.log(
    `  control, 4 × 25 MB buffered in memory: rise ${control.rise.toFixed(1)} MB (${control.ms.toFixed(0)} ms)`,
  );
  const worst = Math.max(maxRssRise, ...results.map((r) => r.rise));
  const verdict = worst < BUDGET_MB ? 'PASS' : 'FAIL';
  console.log(`${verdict}: worst peak RSS rise ${worst.toFixed(1)} MB (budget ${BUDGET_MB} MB)`);
  process.exitCode = worst < BUDGET_MB ? 0 : 1;
} finally {
  child.kill();
  await rm(tempDir, { recursive: true, force: true });
}
