/**
 * P1, P2, P6: what a read costs next to a bare node:http server answering the same bytes (P1, P2),
 * and what a history page costs next to a single poll (P6). Alternating rounds, 64 keep-alive
 * connections, the load generator and each server in their own processes.
 */
import { alternate, type BenchContext, fetchBytes } from '../lib/context.js';
import { type LoadResult, startBareServer, startLoadGenerator } from '../lib/load.js';
import type { RowResult } from '../lib/report.js';
import { formatSpread, spreadOf } from '../lib/stats.js';

export interface PollTarget {
  baseUrl: string;
  apiKey: string;
  store: 'sqlite' | 'postgres';
  /** 20 task ids of the polling account. */
  taskIds: string[];
  /**
   * Starts the server anew on the same data (each round of P1, P2, P6 and P10 runs on a fresh
   * process); with `cpus`, pinned to them (`taskset -c`), else free to use every core.
   */
  restart?: (cpus?: string) => Promise<void>;
}

const ratios = (a: LoadResult[], b: LoadResult[]) =>
  spreadOf(a.map((r, i) => r.rps / (b[i] as LoadResult).rps));
const p99s = (results: LoadResult[]) => spreadOf(results.map((r) => r.p99));
const rps = (results: LoadResult[]) => spreadOf(results.map((r) => r.rps));

/** Route vs bare server answering the route's own bytes. */
async function versusBare(ctx: BenchContext, target: PollTarget, path: string) {
  const sample = await fetchBytes(target.baseUrl, path, target.apiKey);
  await ctx.bare.answerWith(sample.body, sample.contentType);
  const headers = { authorization: `Bearer ${target.apiKey}` };
  const [route = [], bare = []] = await alternate(
    ctx,
    [
      { url: `${target.baseUrl}${path}`, connections: ctx.connections, headers },
      { url: `${ctx.bare.baseUrl}${path}`, connections: ctx.connections, headers },
    ],
    target.restart,
  );
  return { route, bare, bytes: sample.body.length };
}

/** P1: one task poll ÷ bare, with p99. */
export async function pollVersusBare(ctx: BenchContext, target: PollTarget): Promise<RowResult> {
  const { route, bare, bytes } = await versusBare(ctx, target, `/api/v1/tasks/${target.taskIds[0]}`);
  const ratio = ratios(route, bare);
  const p99 = p99s(route);
  return {
    id: 'P1',
    what: '`GET /api/v1/tasks/{id}` req/s ÷ bare',
    store: target.store,
    before: '0.18–0.40 (p99 29–128 ms vs bare 9–17)',
    target: '≥ 0.70; p99 ≤ 10 ms',
    measured: `${formatSpread(ratio)}; ${rps(route).median.toFixed(0)} vs ${rps(bare).median.toFixed(0)} req/s; p99 ${formatSpread(p99, 0)} ms vs bare ${formatSpread(p99s(bare), 0)}`,
    met: ratio.median >= 0.7 && p99.median <= 10,
    details: { bytes, ratio, p99, bareP99: p99s(bare), route, bare },
  };
}

/** P10's shape, the one issue 48 measured with wrk: the service on one core, the load generator on the other. */
export const PINNED = { server: '0', load: '1' } as const;

/**
 * P10: P1's poll with the server pinned to one core (`taskset -c 0`, every round on a fresh
 * process) and the load generator pinned to the other (64 connections); p99 against ≤ 10 ms. The
 * bare server runs pinned to the server's core, for the same shape's floor.
 */
export async function pinnedPoll(ctx: BenchContext, target: PollTarget): Promise<RowResult> {
  const { restart } = target;
  if (restart === undefined) throw new Error('P10 needs a server it can restart pinned');
  const load = await startLoadGenerator(PINNED.load);
  const bare = await startBareServer(PINNED.server);
  try {
    const pinned: BenchContext = { ...ctx, load, bare };
    const path = `/api/v1/tasks/${target.taskIds[0]}`;
    const run = await versusBare(pinned, { ...target, restart: () => restart(PINNED.server) }, path);
    const p99 = p99s(run.route);
    const p50 = spreadOf(run.route.map((r) => r.p50));
    const max = spreadOf(run.route.map((r) => r.max));
    return {
      id: 'P10',
      what: '`GET /api/v1/tasks/{id}` p99, server on 1 core, load generator on the other',
      store: target.store,
      before: 'p99 15.6 ms (wrk, 64 connections)',
      target: 'p99 ≤ 10 ms',
      measured: `p99 ${formatSpread(p99, 0)} ms (p50 ${formatSpread(p50, 0)}, max ${formatSpread(max, 0)}) vs bare ${formatSpread(p99s(run.bare), 0)}; ${rps(run.route).median.toFixed(0)} vs ${rps(run.bare).median.toFixed(0)} req/s`,
      met: p99.median <= 10,
      details: { ...run, p99, p50, max, bareP99: p99s(run.bare), cpus: PINNED },
    };
  } finally {
    await load.stop();
    await bare.stop();
    // The rows after this one run on a server free to use every core.
    await restart();
  }
}

/** P2: a batch poll of 20 ids ÷ bare. */
export async function batchVersusBare(ctx: BenchContext, target: PollTarget): Promise<RowResult> {
  const ids = target.taskIds.slice(0, 20);
  const { route, bare, bytes } = await versusBare(ctx, target, `/api/v1/tasks?ids=${ids.join(',')}`);
  const ratio = ratios(route, bare);
  return {
    id: 'P2',
    what: `batch of ${ids.length} ids ÷ bare`,
    store: target.store,
    before: '0.13–0.29',
    target: '≥ 0.50',
    measured: `${formatSpread(ratio)}; ${rps(route).median.toFixed(0)} vs ${rps(bare).median.toFixed(0)} req/s; p99 ${formatSpread(p99s(route), 0)} ms`,
    met: ratio.median >= 0.5,
    details: { bytes, ratio, p99: p99s(route), route, bare },
  };
}

export interface HistoryTarget extends PollTarget {
  /** Key of the account that holds the seeded history. */
  historyApiKey: string;
  generations: number;
}

/** P6: history page 1 and page 400 (20 a page) of a seeded account ÷ a single poll. */
export async function historyVersusPoll(ctx: BenchContext, target: HistoryTarget): Promise<RowResult> {
  const history = { authorization: `Bearer ${target.historyApiKey}` };
  const page1 = '/api/v1/history?page=1&limit=20';
  const page400 = '/api/v1/history?page=400&limit=20';
  // The seed wrote rows straight into the store: check the service counts them all.
  const first = (await fetchBytes(target.baseUrl, page1, target.historyApiKey)).json as { total?: number };
  const deep = (await fetchBytes(target.baseUrl, page400, target.historyApiKey)).json as {
    items?: unknown[];
  };
  const [poll = [], one = [], four = []] = await alternate(
    ctx,
    [
      {
        url: `${target.baseUrl}/api/v1/tasks/${target.taskIds[0]}`,
        connections: ctx.connections,
        headers: { authorization: `Bearer ${target.apiKey}` },
      },
      { url: `${target.baseUrl}${page1}`, connections: ctx.connections, headers: history },
      { url: `${target.baseUrl}${page400}`, connections: ctx.connections, headers: history },
    ],
    target.restart,
  );
  const r1 = ratios(one, poll);
  const r400 = ratios(four, poll);
  const countNote =
    first.total === target.generations && deep.items?.length === 20
      ? undefined
      : `history reports total ${first.total} and ${deep.items?.length} items on page 400 for ${target.generations} seeded`;
  const p50 = spreadOf(four.map((r) => r.p50));
  return {
    id: 'P6',
    what: `history page 1 / page 400, ${target.generations.toLocaleString('en-US')} generations, ÷ single poll`,
    store: target.store,
    before: '0.21 / 0.15 (page 400 p50 113 ms)',
    target: '≥ 0.50 both',
    measured: `${formatSpread(r1)} / ${formatSpread(r400)}; page 400 p50 ${formatSpread(p50, 1)} ms`,
    met: r1.median >= 0.5 && r400.median >= 0.5,
    details: { ratioPage1: r1, ratioPage400: r400, page400P50: p50, poll, page1: one, page400: four },
    ...(countNote ? { note: countNote } : {}),
  };
}

/**
 * C1 (calibration, no target): the bare server with 5 and with 10 µs of busy work per request
 * (under /spin/<µs>/) ÷ the bare server, answering the poll's bytes. On a machine whose load
 * generator shares the cores with the server, a request's own work costs more than its own
 * time (the server's answers wake a load generator that now waits): this row says which ratio
 * a given amount of work per request comes to, on the machine of the run.
 */
export async function calibration(ctx: BenchContext, target: PollTarget): Promise<RowResult> {
  const sample = await fetchBytes(target.baseUrl, `/api/v1/tasks/${target.taskIds[0]}`, target.apiKey);
  await ctx.bare.answerWith(sample.body, sample.contentType);
  const job = (path: string) => ({ url: `${ctx.bare.baseUrl}${path}`, connections: ctx.connections });
  const [bare = [], five = [], ten = []] = await alternate(ctx, [
    job('/x'),
    job('/spin/5/x'),
    job('/spin/10/x'),
  ]);
  const r5 = ratios(five, bare);
  const r10 = ratios(ten, bare);
  return {
    id: 'C1',
    what: 'calibration: bare server with 5 / 10 µs of work per request ÷ bare',
    store: '-',
    before: '—',
    target: '— (reads the ratios above)',
    measured: `${formatSpread(r5)} / ${formatSpread(r10)}; bare ${rps(bare).median.toFixed(0)} req/s`,
    met: undefined,
    details: { ratio5: r5, ratio10: r10, bare, five, ten },
  };
}
