/** What every row gets: the mode, the load generator, the bare baseline and the server entry. */
import type { ServerEntry } from './atelier-process.js';
import type { BareServer, LoadGenerator, LoadJob, LoadResult } from './load.js';

export interface BenchContext {
  quick: boolean;
  /** Alternating rounds per ratio. */
  rounds: number;
  /** Seconds of load per measurement. */
  seconds: number;
  /** Keep-alive connections of the load generator. */
  connections: number;
  load: LoadGenerator;
  bare: BareServer;
  entry: ServerEntry;
  log(message: string): void;
}

/**
 * Runs each job once per round, rotating which goes first in each round (A B, B A, …) so that
 * neither side always follows the other; returns the results per job, in round order.
 *
 * With `freshServer`, every round begins on a newly started server process (then warmed up):
 * one process's steady speed is a draw — on this machine a process of the same build settles,
 * for its whole life, at its usual speed or in one of two slower states (docs/benchmarks.md,
 * "One process is one draw") — so rounds on one process would all share its draw, and the spread
 * would hide it. The median of rounds on fresh processes is the speed of a typical process.
 */
export async function alternate(
  ctx: BenchContext,
  jobs: LoadJob[],
  freshServer?: () => Promise<void>,
): Promise<LoadResult[][]> {
  const results: LoadResult[][] = jobs.map(() => []);
  // Warm-up (JIT, caches, connections), not counted: half a second of each job; on a fresh
  // process, long enough for V8 to optimise the hot path (about 100,000 polls).
  const warmUp = async (seconds: number) => {
    for (const job of jobs) await ctx.load.run({ ...job, seconds });
  };
  if (freshServer === undefined) await warmUp(0.5);
  for (let round = 0; round < ctx.rounds; round++) {
    if (freshServer !== undefined) {
      await freshServer();
      await warmUp(ctx.quick ? 1 : 2);
    }
    for (let k = 0; k < jobs.length; k++) {
      const index = (round + k) % jobs.length;
      const job = jobs[index] as LoadJob;
      (results[index] as LoadResult[]).push(await ctx.load.run({ seconds: ctx.seconds, ...job }));
    }
  }
  return results;
}

/** GET `path` with the account's key; the body's bytes and content type (throws unless 200). */
export async function fetchBytes(
  baseUrl: string,
  path: string,
  apiKey: string,
): Promise<{ body: Buffer; contentType: string; json: unknown }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${body}`);
  return {
    body,
    contentType: response.headers.get('content-type') ?? 'application/json',
    json: JSON.parse(body.toString('utf8')),
  };
}

/** POSTs JSON with the account's key; the parsed answer (throws unless 200). */
export async function postJson(baseUrl: string, path: string, apiKey: string, payload: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200)
    throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Submits `count` renders (generate requests of 4) and returns their task ids. */
export async function submitRenders(baseUrl: string, apiKey: string, count: number, label: string) {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) {
    const n = Math.min(4, count - ids.length);
    const answer = await postJson(baseUrl, '/api/v1/generate', apiKey, {
      prompt: `${label} ${i}`,
      count: n,
      imageSize: '1K',
    });
    ids.push(...(answer.task_ids as string[]));
  }
  return ids;
}

/** Waits until every task is final (batch polls of 20, every 100 ms); returns how long it took. */
export async function waitFinal(baseUrl: string, apiKey: string, ids: string[], timeoutMs = 300_000) {
  const started = performance.now();
  let pending = ids;
  while (pending.length > 0) {
    if (performance.now() - started > timeoutMs) throw new Error(`${pending.length} tasks not final in time`);
    const still: string[] = [];
    for (let i = 0; i < pending.length; i += 20) {
      const chunk = pending.slice(i, i + 20);
      const { json } = await fetchBytes(baseUrl, `/api/v1/tasks?ids=${chunk.join(',')}`, apiKey);
      for (const task of (json as { tasks: unknown[] }).tasks) {
        const { task_id, status } = task as { task_id: string; status: string };
        if (status !== 'completed' && status !== 'failed') still.push(task_id);
      }
    }
    pending = still;
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - started;
}
