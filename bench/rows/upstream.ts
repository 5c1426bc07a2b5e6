/**
 * P3: upstream calls per task with 1 poller and with 1,000 concurrent pollers. Polls read the
 * store, never the upstream, so the count must not change. The upstream is the project's Replicate
 * stand-in in its own process, behind the catalog's `flash2` entry (ATELIER_REPLICATE_BASE_URL).
 */
import { fileURLToPath } from 'node:url';
import {
  type AtelierEnv,
  atelierEnv,
  createAccount,
  removeTarget,
  serverArgs,
  startAtelier,
} from '../lib/atelier-process.js';
import { type BenchContext, fetchBytes, postJson, waitFinal } from '../lib/context.js';
import { startIpcChild } from '../lib/ipc-child.js';
import type { RowResult } from '../lib/report.js';

const TASKS = 4;
const POLLERS = 1000;

interface Counts {
  baseUrl: string;
  token: string;
  calls: number;
  creates: number;
}

/** One poller: GET each task in turn until all are final. */
async function pollOneAtATime(target: AtelierEnv, apiKey: string, ids: string[]) {
  const open = new Set(ids);
  while (open.size > 0) {
    for (const id of [...open]) {
      const { json } = await fetchBytes(target.baseUrl, `/api/v1/tasks/${id}`, apiKey);
      const status = (json as { status: string }).status;
      if (status === 'completed' || status === 'failed') open.delete(id);
    }
  }
}

/** P3 on its own server (SQLite) and its own upstream process. */
export async function upstreamCallsPerTask(ctx: BenchContext): Promise<RowResult> {
  const upstream = await startIpcChild(
    fileURLToPath(new URL('../lib/fake-upstream-worker.ts', import.meta.url)),
  );
  const first = await upstream.call<Counts>({});
  const target = await atelierEnv({
    ATELIER_CATALOG: fileURLToPath(new URL('../../catalogs/replicate.json', import.meta.url)),
    ATELIER_REPLICATE_API_TOKEN: first.token,
    ATELIER_REPLICATE_BASE_URL: first.baseUrl,
    ATELIER_UPLOAD_ALLOWED_HOSTS: new URL(first.baseUrl).host,
  });
  try {
    const apiKey = createAccount(target, 'p3@bench.test', ctx.entry);
    const server = await startAtelier(target, serverArgs(ctx.entry));
    try {
      const phase = async (label: string, poll: (ids: string[]) => Promise<void>) => {
        const before = await upstream.call<Counts>({});
        const started = performance.now();
        const answer = await postJson(target.baseUrl, '/api/v1/generate', apiKey, {
          prompt: `p3 ${label}`,
          model: 'flash2',
          count: TASKS,
          aspect: '1:1',
        });
        const ids = answer.task_ids as string[];
        await poll(ids);
        await waitFinal(target.baseUrl, apiKey, ids);
        const after = await upstream.call<Counts>({});
        return {
          callsPerTask: (after.calls - before.calls) / ids.length,
          seconds: (performance.now() - started) / 1000,
        };
      };
      const single = await phase('one poller', (ids) => pollOneAtATime(target, apiKey, ids));
      const many = await phase('1000 pollers', async (ids) => {
        // 1,000 connections polling the batch of these tasks for as long as one poller needed, plus 2 s.
        await ctx.load.run({
          url: `${target.baseUrl}/api/v1/tasks?ids=${ids.join(',')}`,
          connections: POLLERS,
          seconds: Math.ceil(single.seconds) + 2,
          headers: { authorization: `Bearer ${apiKey}` },
        });
      });
      return {
        id: 'P3',
        what: 'upstream calls per task, 1 vs 1,000 concurrent pollers',
        store: 'sqlite',
        before: 'equal (good)',
        target: 'equal',
        measured: `${single.callsPerTask.toFixed(2)} vs ${many.callsPerTask.toFixed(2)} (${TASKS} tasks each)`,
        met: single.callsPerTask === many.callsPerTask,
        details: { single, many },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await upstream.stop();
    removeTarget(target);
  }
}
