/**
 * The servers the rows run against: one per store for the read rows (P1, P2, P6 at 10,000
 * generations, then P7 and P4 on SQLite), and one over a large table (P8, then P6 at 100,000).
 */
import { join } from 'node:path';
import {
  type AtelierEnv,
  type AtelierProcess,
  atelierEnv,
  createAccount,
  removeTarget,
  serverArgs,
  startAtelier,
} from './lib/atelier-process.js';
import { type BenchContext, submitRenders, waitFinal } from './lib/context.js';
import { createBenchDatabase, dropBenchDatabase } from './lib/postgres.js';
import { failedRow, type RowResult } from './lib/report.js';
import { seedHistory } from './lib/seed.js';
import { idleEngine, renderingRows } from './rows/engine.js';
import { batchVersusBare, calibration, historyVersusPoll, pinnedPoll, pollVersusBare } from './rows/polls.js';

type Row = (ctx: BenchContext) => Promise<RowResult>;
export type Wanted = (id: string) => boolean;

/** Runs `row`; a failure becomes a row that says so, and the run goes on. */
export async function attempt(ctx: BenchContext, base: Pick<RowResult, 'id' | 'what' | 'store'>, row: Row) {
  ctx.log(`${base.id} (${base.store}) …`);
  try {
    const result = await row(ctx);
    ctx.log(`${result.id}: ${result.measured}`);
    return result;
  } catch (error) {
    ctx.log(`${base.id} failed: ${(error as Error).stack}`);
    return failedRow({ ...base, before: '', target: '' }, error);
  }
}

interface Seeded {
  target: AtelierEnv;
  server: AtelierProcess;
  pollerKey: string;
  historyKey: string;
  taskIds: string[];
  generations: number;
}

/**
 * A server whose `history@` account holds `generations` seeded items, and a `poller@` account with
 * 20 finished renders (unless `polls` is false).
 */
async function seededServer(
  ctx: BenchContext,
  generations: number,
  tasksPerGeneration: number,
  env: Record<string, string> = {},
  polls = true,
): Promise<Seeded> {
  const target = await atelierEnv({ ATELIER_LOCAL_LATENCY_MS: '1500', ...env });
  try {
    const pollerKey = createAccount(target, 'poller@bench.test', ctx.entry);
    const historyKey = createAccount(target, 'history@bench.test', ctx.entry);
    const databaseUrl = env.ATELIER_DATABASE_URL ?? join(target.dataDir, 'atelier.db');
    const seed = await seedHistory(databaseUrl, 'history@bench.test', generations, tasksPerGeneration);
    ctx.log(`seeded ${seed.generations} generations / ${seed.tasks} tasks in ${seed.seconds.toFixed(1)} s`);
    const server = await startAtelier(target, serverArgs(ctx.entry));
    const taskIds = polls ? await submitRenders(target.baseUrl, pollerKey, 20, 'bench poll') : [];
    await waitFinal(target.baseUrl, pollerKey, taskIds);
    return {
      target,
      server,
      pollerKey,
      historyKey,
      taskIds,
      generations,
    };
  } catch (error) {
    removeTarget(target);
    throw error;
  }
}

/**
 * Stops the seeded server and starts it again on the same data dir, database and port; with `cpus`,
 * pinned to them (`taskset -c <cpus> node …`: every thread, the ones it starts later too).
 */
async function restart(ctx: BenchContext, s: Seeded, cpus?: string): Promise<void> {
  await s.server.stop();
  s.server =
    cpus === undefined
      ? await startAtelier(s.target, serverArgs(ctx.entry))
      : await startAtelier(s.target, ['-c', cpus, process.execPath, ...serverArgs(ctx.entry)], 'taskset');
}

async function readRows(ctx: BenchContext, s: Seeded, store: 'sqlite' | 'postgres', wanted: Wanted) {
  const poll = {
    baseUrl: s.target.baseUrl,
    apiKey: s.pollerKey,
    store,
    taskIds: s.taskIds,
    restart: (cpus?: string) => restart(ctx, s, cpus),
  };
  const rows: RowResult[] = [];
  if (store === 'sqlite' && wanted('C1'))
    rows.push(await attempt(ctx, { id: 'C1', what: 'calibration', store: '-' }, (c) => calibration(c, poll)));
  if (wanted('P1'))
    rows.push(
      await attempt(ctx, { id: 'P1', what: 'single poll ÷ bare', store }, (c) => pollVersusBare(c, poll)),
    );
  if (wanted('P2'))
    rows.push(await attempt(ctx, { id: 'P2', what: 'batch ÷ bare', store }, (c) => batchVersusBare(c, poll)));
  if (wanted('P10'))
    rows.push(await attempt(ctx, { id: 'P10', what: 'poll p99, 1 core', store }, (c) => pinnedPoll(c, poll)));
  if (wanted('P6')) {
    const history = { ...poll, historyApiKey: s.historyKey, generations: s.generations };
    rows.push(
      await attempt(ctx, { id: 'P6', what: 'history ÷ poll', store }, (c) => historyVersusPoll(c, history)),
    );
  }
  return rows;
}

/** P1, P2, P6 (10,000 generations), then P7 and P4 on SQLite. */
export async function sqliteSuite(ctx: BenchContext, wanted: Wanted): Promise<RowResult[]> {
  const s = await seededServer(ctx, 10_000, 1);
  try {
    const rows = await readRows(ctx, s, 'sqlite', wanted);
    const engine = {
      baseUrl: s.target.baseUrl,
      apiKey: s.pollerKey,
      pid: s.server.pid,
      taskId: s.taskIds[0] ?? '',
    };
    if (wanted('P7') || wanted('P4')) {
      try {
        ctx.log('P7 and P4 (sqlite) …');
        for (const row of await renderingRows(ctx, engine)) if (wanted(row.id)) rows.push(row);
      } catch (error) {
        ctx.log(`P7/P4 failed: ${(error as Error).stack}`);
        const base = { store: 'sqlite' as const, before: '', target: '' };
        rows.push(failedRow({ ...base, id: 'P7', what: 'polls while rendering' }, error));
        rows.push(failedRow({ ...base, id: 'P4', what: 'generate latency while rendering' }, error));
      }
    }
    return rows;
  } finally {
    await s.server.stop();
    removeTarget(s.target);
  }
}

/** P1, P2, P6 on a fresh PostgreSQL database; empty when none is reachable. */
export async function postgresSuite(ctx: BenchContext, wanted: Wanted): Promise<RowResult[]> {
  const database = await createBenchDatabase();
  if (!database) {
    ctx.log('PostgreSQL not reachable: its rows are skipped');
    return [];
  }
  try {
    const s = await seededServer(ctx, 10_000, 1, { ATELIER_DATABASE_URL: database.url });
    try {
      return await readRows(ctx, s, 'postgres', wanted);
    } finally {
      await s.server.stop();
      removeTarget(s.target);
    }
  } finally {
    await dropBenchDatabase(database.name);
  }
}

/** P8 over 100,000 generations × 4 = 400,000 task rows; in a full run, P6 at 100,000 generations after it. */
export async function largeTableSuite(ctx: BenchContext, wanted: Wanted): Promise<RowResult[]> {
  const s = await seededServer(ctx, 100_000, 4, {}, wanted('P6') && !ctx.quick);
  try {
    const rows: RowResult[] = [];
    if (wanted('P8')) {
      const engine = {
        baseUrl: s.target.baseUrl,
        apiKey: s.pollerKey,
        pid: s.server.pid,
        taskId: s.taskIds[0] ?? '',
      };
      rows.push(
        await attempt(ctx, { id: 'P8', what: 'idle engine', store: 'sqlite' }, (c) =>
          idleEngine(c, engine, 400_000 + 20),
        ),
      );
    }
    if (wanted('P6') && !ctx.quick) {
      const history = {
        baseUrl: s.target.baseUrl,
        apiKey: s.pollerKey,
        store: 'sqlite' as const,
        taskIds: s.taskIds,
        restart: () => restart(ctx, s),
        historyApiKey: s.historyKey,
        generations: s.generations,
      };
      rows.push(
        await attempt(ctx, { id: 'P6', what: 'history ÷ poll', store: 'sqlite' }, (c) =>
          historyVersusPoll(c, history),
        ),
      );
    }
    return rows;
  } finally {
    await s.server.stop();
    removeTarget(s.target);
  }
}
