/**
 * M1 (issue 47): memory under a long run of mixed traffic on one node. One server (SQLite, the
 * offline renderer at 300 ms a render, webhooks to a loopback receiver), driven for `minutes` by a
 * fixed number of paced clients, each picking its next request from a weighted mix; the server's
 * RSS (from /proc) and V8 heap (its own /metrics) are sampled all along. Judged on the samples
 * after warm-up: RSS must stay flat (the last third's median within 10 % of the middle third's).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import { Agent } from 'undici';
import {
  type AtelierEnv,
  atelierEnv,
  createAccount,
  freePort,
  removeTarget,
  serverArgs,
  startAtelier,
} from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { spreadOf } from '../lib/stats.js';
import { cacheBounds } from './soak-bounds.js';
import { type Mix, mixedRequest, type SoakState } from './soak-mix.js';

const METRICS_TOKEN = 'bench-soak-metrics-token-0123456789';
const MB = 1024 * 1024;

export interface Sample {
  /** Seconds since the traffic began. */
  t: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  load1: number;
}

/** The server's resident set from /proc/<pid>/status (VmRSS), in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** One sample: RSS from /proc, the heap figures from prom-client's runtime metrics. */
async function sample(pid: number, baseUrl: string, t: number): Promise<Sample> {
  const text = await fetch(`${baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  }).then((r) => r.text());
  const gauge = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / MB;
  return {
    t,
    rssMb: rssMb(pid),
    heapUsedMb: gauge('atelier_nodejs_heap_size_used_bytes'),
    heapTotalMb: gauge('atelier_nodejs_heap_size_total_bytes'),
    externalMb: gauge('atelier_nodejs_external_memory_bytes'),
    load1: loadavg()[0] ?? 0,
  };
}

/** A loopback webhook receiver that answers 200 to every delivery and counts them. */
async function startReceiver(): Promise<{ server: Server; url: string; host: string; count: () => number }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${port}/hook`, host: `127.0.0.1:${port}`, count: () => received };
}

/** Medians of RSS and heap over a span of samples. */
function spanMedians(samples: Sample[]) {
  return {
    rssMb: spreadOf(samples.map((s) => s.rssMb)).median,
    heapUsedMb: spreadOf(samples.map((s) => s.heapUsedMb)).median,
  };
}

/** The least heap used in each minute: the live heap's floor (what survives the collections). */
function heapFloors(samples: Sample[]): number[] {
  const floors = new Map<number, number>();
  for (const s of samples) {
    const minute = Math.floor(s.t / 60);
    floors.set(minute, Math.min(floors.get(minute) ?? Number.POSITIVE_INFINITY, s.heapUsedMb));
  }
  return [...floors.values()].map((mb) => Math.round(mb * 10) / 10);
}

/** The median RSS of the samples in [from, to) seconds (NaN when none). */
function rssBetween(samples: Sample[], from: number, to: number): number {
  const span = samples.filter((s) => s.t >= from && s.t < to);
  return span.length === 0 ? Number.NaN : spreadOf(span.map((s) => s.rssMb)).median;
}

/** RSS at every 5 minutes of the run (the median of the minute before each mark), in MB. */
function rssMarks(samples: Sample[], end: number): Record<string, number> {
  const marks: Record<string, number> = {};
  for (let minute = 5; minute * 60 <= end + 1; minute += 5)
    marks[`${minute} min`] = Math.round(rssBetween(samples, (minute - 1) * 60, minute * 60 + 1));
  return marks;
}

/** Least-squares slope of RSS over time, in MB per 10 minutes. */
function rssSlope(samples: Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mr = samples.reduce((a, s) => a + s.rssMb, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - mt) * (s.rssMb - mr);
    den += (s.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 600;
}

/** Drives the mix until `stopAt`: `clients` loops, each pausing `pauseMs` between requests. */
async function drive(state: SoakState, mix: Mix, clients: number, pauseMs: number, stopAt: number) {
  const loop = async (client: number) => {
    while (performance.now() < stopAt) {
      await mixedRequest(state, mix, client);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => loop(i)));
}

export interface SoakOptions {
  minutes: number;
}

/** Runs the soak and returns its row; the samples go in the row's details. */
export async function soakRow(ctx: BenchContext, options: SoakOptions): Promise<RowResult> {
  const receiver = await startReceiver();
  const target: AtelierEnv = await atelierEnv({
    ATELIER_LOCAL_LATENCY_MS: '300',
    ATELIER_METRICS_TOKEN: METRICS_TOKEN,
    ATELIER_UPLOAD_ALLOWED_HOSTS: receiver.host,
    // glibc's malloc arenas: 2, as the Dockerfile ships (BENCH_MALLOC_ARENA_MAX=default: glibc's own, 8 per core).
    ...(process.env.BENCH_MALLOC_ARENA_MAX === 'default'
      ? {}
      : { MALLOC_ARENA_MAX: process.env.BENCH_MALLOC_ARENA_MAX ?? '2' }),
  });
  const dispatcher = new Agent({ connections: 16 });
  try {
    const keys = ['a', 'b', 'c', 'd'].map((n) => createAccount(target, `soak-${n}@bench.test`, ctx.entry));
    const server = await startAtelier(target, serverArgs(ctx.entry));
    const state: SoakState = {
      baseUrl: target.baseUrl,
      keys,
      callbackUrl: receiver.url,
      dispatcher,
      taskIds: keys.map(() => []),
      fileUrls: keys.map(() => []),
      counts: new Map(),
      errors: [],
    };
    const seconds = options.minutes * 60;
    const everyS = seconds <= 120 ? 2 : 10;
    const samples: Sample[] = [];
    const started = performance.now();
    const stopAt = started + seconds * 1000;
    const sampler = setInterval(() => {
      const t = (performance.now() - started) / 1000;
      sample(server.pid, target.baseUrl, t).then(
        (s) => {
          samples.push(s);
          if (samples.length % 30 === 0)
            ctx.log(`M1 ${t.toFixed(0)} s: RSS ${s.rssMb.toFixed(0)} MB, heap ${s.heapUsedMb.toFixed(0)} MB`);
        },
        () => undefined,
      );
    }, everyS * 1000);
    samples.push(await sample(server.pid, target.baseUrl, 0));
    try {
      await drive(state, defaultMix, 12, 150, stopAt);
    } finally {
      clearInterval(sampler);
    }
    // Let the last renders and deliveries finish, then a final sample.
    await new Promise((r) => setTimeout(r, 3000));
    samples.push(await sample(server.pid, target.baseUrl, (performance.now() - started) / 1000));
    await server.stop();
    const row = soakResult(options, samples, state, receiver.count());
    for (const { cache, bound } of cacheBounds()) ctx.log(`M1 cache bound: ${cache}: ${bound}`);
    return row;
  } finally {
    await dispatcher.close();
    receiver.server.close();
    removeTarget(target);
  }
}

const defaultMix: Mix = {
  generate: 8,
  openaiGenerate: 2,
  geminiGenerate: 1,
  poll: 25,
  batchPoll: 10,
  history: 12,
  file: 15,
  upload: 4,
  models: 5,
  usage: 4,
  notFound: 4,
  invalid: 3,
};

function soakResult(
  options: SoakOptions,
  samples: Sample[],
  state: SoakState,
  deliveries: number,
): RowResult {
  const end = samples[samples.length - 1]?.t ?? 0;
  // Warm-up: the first fifth (at least the first minute when the run is long enough).
  const warm = Math.min(Math.max(end / 5, Math.min(60, end / 2)), end / 2);
  const after = samples.filter((s) => s.t >= warm);
  const third = Math.floor(after.length / 3);
  const middle = spanMedians(after.slice(third, 2 * third));
  const last = spanMedians(after.slice(2 * third));
  const growth = last.rssMb / middle.rssMb - 1;
  const requests = [...state.counts.values()].reduce((a, n) => a + n, 0);
  const rss = samples.map((s) => s.rssMb);
  const loads = samples.map((s) => s.load1);
  // RSS once warm (the minute after the warm-up, or its first samples on a short run) and at the end.
  const window = Math.min(60, Math.max(end / 10, 1));
  const warmRss = rssBetween(samples, warm, warm + window);
  const endRss = rssBetween(samples, end - window, end + 1);
  const slope = Math.round(rssSlope(after) * 10) / 10;
  return {
    id: 'M1',
    what: `${options.minutes} min of mixed traffic on one node: RSS after warm-up`,
    store: 'sqlite',
    before: '286 → 551 MB in 7 min (no bound shown)',
    target: 'flat: last third within 10 % of the middle third',
    measured:
      `RSS ${rss[0]?.toFixed(0)} MB at start, ${warmRss.toFixed(0)} MB after warm-up (${(warm / 60).toFixed(1)} min), ` +
      `${endRss.toFixed(0)} MB at the end (${(end / 60).toFixed(1)} min), slope after warm-up ${slope >= 0 ? '+' : ''}${slope} MB / 10 min; ` +
      `${middle.rssMb.toFixed(0)} → ${last.rssMb.toFixed(0)} MB ` +
      `(middle → last third, ${(growth * 100).toFixed(1)} %), max ${Math.max(...rss).toFixed(0)} MB; ` +
      `heap ${middle.heapUsedMb.toFixed(0)} → ${last.heapUsedMb.toFixed(0)} MB; ` +
      `${requests} requests, ${state.errors.length} unexpected answers, ${deliveries} webhook deliveries`,
    met: Math.abs(growth) <= 0.1 && state.errors.length === 0,
    details: {
      minutes: options.minutes,
      warmUpSeconds: warm,
      rssAfterWarmUpMb: Math.round(warmRss),
      rssAtEndMb: Math.round(endRss),
      rssSlopeMbPer10MinAfterWarmUp: slope,
      rssEvery5MinMb: rssMarks(samples, end),
      heapFloorPerMinuteMb: heapFloors(samples),
      loadAverage: { min: Math.min(...loads), max: Math.max(...loads) },
      requests: Object.fromEntries(state.counts),
      unexpected: state.errors.slice(0, 20),
      webhookDeliveries: deliveries,
      cacheBounds: cacheBounds(),
      samples,
    },
  };
}
