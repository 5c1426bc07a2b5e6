/**
 * S1 (issue 48): the gateway's own milliseconds on one synchronous image. A loopback upstream speaking
 * OpenAI Images (bench/lib/instant-openai-worker.ts, its own process) answers at once with one
 * 1024×1024 PNG; the same request is sent to it directly and through Atelier's
 * `POST /v1/images/generations` (`catalogs/openai.json`), one request at a time, interleaved (direct,
 * Atelier, Atelier, direct, …), over keep-alive connections. The row is the p50 and p90 of what
 * Atelier adds over the direct call, and the median of each stage of the request as the server's
 * `server-timing` answer header reports it (ATELIER_STAGE_TIMING=1, docs/benchmarks.md#s1).
 */
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  type AtelierEnv,
  atelierEnv,
  createAccount,
  removeTarget,
  serverArgs,
  startAtelier,
} from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import { startIpcChild } from '../lib/ipc-child.js';
import { createBenchDatabase, dropBenchDatabase } from '../lib/postgres.js';
import { failedRow, type RowResult } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { attempt } from '../suites.js';

const GOAL_MS = 3;
const UPSTREAM_KEY = 'sk-bench-s1';

interface Timed {
  ms: number;
  status: number;
  serverTiming: string | undefined;
}

/** One POST over `agent`, timed from the write to the last byte of the answer. */
function timedPost(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.on('data', () => {});
        res.on('end', () =>
          resolve({
            ms: performance.now() - started,
            status: res.statusCode ?? 0,
            serverTiming: res.headers['server-timing'] as string | undefined,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `name;dur=1.23, …` → { name: 1.23 }. */
export function parseServerTiming(header: string | undefined): Record<string, number> {
  const stages: Record<string, number> = {};
  for (const part of header?.split(',') ?? []) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.find((p) => p.trim().startsWith('dur='));
    if (name && dur) stages[name] = Number(dur.trim().slice(4));
  }
  return stages;
}

const median = (values: number[]) => percentile(values, 50);

function note(stages: Record<string, number[]>, name: string, ms: number): void {
  const list = stages[name] ?? [];
  list.push(ms);
  stages[name] = list;
}

/** The interleaved pairs and the stage medians on one server. */
async function measure(ctx: BenchContext, target: AtelierEnv, upstreamUrl: string, pairs: number) {
  const apiKey = createAccount(target, 's1@bench.test', ctx.entry);
  const server = await startAtelier(target, serverArgs(ctx.entry));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const direct = () =>
    timedPost(
      agent,
      `${upstreamUrl}/v1/images/generations`,
      { authorization: `Bearer ${UPSTREAM_KEY}` },
      JSON.stringify({ model: 'gpt-image-2.6-flare', prompt: 'a blue square', size: '1024x1024' }),
    );
  const viaAtelier = (format: string) =>
    timedPost(
      agent,
      `${target.baseUrl}/v1/images/generations`,
      { authorization: `Bearer ${apiKey}` },
      JSON.stringify({
        model: 'base-image-2',
        prompt: 'a blue square',
        size: '1024x1024',
        response_format: format,
      }),
    );
  try {
    for (let i = 0; i < 20; i++) {
      await direct();
      await viaAtelier(i % 2 === 0 ? 'b64_json' : 'url');
    }
    const added: number[] = [];
    const addedUrl: number[] = [];
    const directMs: number[] = [];
    const stages: Record<string, number[]> = {};
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0;
      const a = order ? await direct() : await viaAtelier('b64_json');
      const b = order ? await viaAtelier('b64_json') : await direct();
      const [d, t] = order ? [a, b] : [b, a];
      if (t.status !== 200 || d.status !== 200) throw new Error(`status ${t.status} / ${d.status}`);
      directMs.push(d.ms);
      added.push(t.ms - d.ms);
      const u = await viaAtelier('url');
      if (u.status !== 200) throw new Error(`status ${u.status} (url)`);
      addedUrl.push(u.ms - d.ms);
      const split = parseServerTiming(t.serverTiming);
      const total = split.total;
      for (const [name, ms] of Object.entries(split)) note(stages, name, ms);
      // What the handler's own clock cannot see: the answer's way out (serialization, the socket
      // both ways), as the client's time less the server's way in (`in`: Fastify's routing, the
      // body's parse, the key, the schema) and the handler's total.
      if (total !== undefined) note(stages, 'outside the handler', t.ms - total - (split.in ?? 0));
    }
    const stageMedians = Object.fromEntries(
      Object.entries(stages).map(([name, values]) => [name, Math.round(median(values) * 100) / 100]),
    );
    return {
      p50: median(added),
      p90: percentile(added, 90),
      urlP50: median(addedUrl),
      directP50: median(directMs),
      stageMedians,
      samples: { added, addedUrl, directMs },
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** S1 on one store (`postgres`: a fresh bench database). */
export async function syncImageRow(
  ctx: BenchContext,
  store: 'sqlite' | 'postgres',
): Promise<RowResult | undefined> {
  const upstream = await startIpcChild(
    fileURLToPath(new URL('../lib/instant-openai-worker.ts', import.meta.url)),
  );
  const database = store === 'postgres' ? await createBenchDatabase() : undefined;
  if (store === 'postgres' && !database) {
    await upstream.stop();
    return undefined;
  }
  const { baseUrl } = await upstream.call<{ baseUrl: string }>({});
  const target = await atelierEnv({
    ATELIER_CATALOG: fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url)),
    ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
    ATELIER_OPENAI_BASE_URL: baseUrl,
    ATELIER_STAGE_TIMING: '1',
    ...(database ? { ATELIER_DATABASE_URL: database.url } : {}),
  });
  try {
    const m = await measure(ctx, target, baseUrl, ctx.quick ? 60 : 200);
    const f = (n: number) => n.toFixed(1);
    const split = Object.entries(m.stageMedians)
      .map(([name, ms]) => `${name} ${ms}`)
      .join(', ');
    return {
      id: 'S1',
      what: 'sync OpenAI image: ms added over the direct upstream call (p50 / p90), stage split in ms',
      store,
      before: '11.1–11.4 ms p50 (p90 ~20 ms), SQLite',
      target: `≤ ${GOAL_MS} ms p50 on SQLite (PostgreSQL stated)`,
      measured: `${f(m.p50)} / ${f(m.p90)} ms (url answers ${f(m.urlP50)} ms p50; direct ${f(m.directP50)} ms) — ${split}`,
      met: store === 'sqlite' ? m.p50 <= GOAL_MS : undefined,
      details: m,
    };
  } finally {
    await upstream.stop();
    removeTarget(target);
    if (database) await dropBenchDatabase(database.name);
  }
}

/** S1 on SQLite, then on PostgreSQL when `postgres` (and a server answers). */
export async function syncImageRows(ctx: BenchContext, postgres: boolean): Promise<RowResult[]> {
  const what = 'sync image';
  const rows = [
    await attempt(
      ctx,
      { id: 'S1', what, store: 'sqlite' },
      async (c) => (await syncImageRow(c, 'sqlite')) as RowResult,
    ),
  ];
  if (postgres) {
    const base = { id: 'S1', what, store: 'postgres' as const };
    rows.push(
      await attempt(
        ctx,
        base,
        async (c) =>
          (await syncImageRow(c, 'postgres')) ??
          failedRow({ ...base, before: '', target: '' }, new Error('no PostgreSQL server')),
      ),
    );
  }
  return rows;
}
