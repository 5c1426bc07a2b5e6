/** The orchestrator's side of the load generator and the bare baseline server. */
import { fileURLToPath } from 'node:url';
import { type IpcChild, startIpcChild } from './ipc-child.js';

export interface LoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  /** 2xx answers per second. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

export interface LoadJob {
  url: string;
  connections: number;
  seconds?: number;
  amount?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadGenerator {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): Promise<void>;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Starts the load generator (autocannon) in its own process; with `cpus`, pinned to them (`taskset -c`). */
export async function startLoadGenerator(cpus?: string): Promise<LoadGenerator> {
  const child = await startIpcChild(here('./load-worker.ts'), {}, cpus);
  return {
    async run(job) {
      const result = await child.call<LoadResult>({ ...job, headers: job.headers ?? {} });
      if (result.ok === 0) throw new Error(`${job.method ?? 'GET'} ${job.url}: no 2xx answer`);
      return result;
    },
    stop: () => child.stop(),
  };
}

export interface BareServer {
  baseUrl: string;
  /** Answers every request with these bytes from now on. */
  answerWith(body: Buffer, contentType: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the bare node:http baseline in its own process; with `cpus`, pinned to them (`taskset -c`). */
export async function startBareServer(cpus?: string): Promise<BareServer> {
  const child: IpcChild = await startIpcChild(here('./bare-worker.ts'), {}, cpus);
  const { baseUrl } = await child.call<{ baseUrl: string }>({});
  return {
    baseUrl,
    async answerWith(body, contentType) {
      await child.call({ body: body.toString('base64'), contentType });
    },
    stop: () => child.stop(),
  };
}
