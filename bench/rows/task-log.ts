/**
 * A1: the operator's task log at a million tasks (issue 43: "a page under 50 ms at a million tasks on
 * both stores"). A server over the seed of bench/lib/task-log-seed.ts; an operator's key reads the
 * first page of every filter the log offers (each alone, and three combined), a page deep in the log
 * by its cursor, and one task's life, each 25 times after 3 warm-ups, one request at a time over
 * loopback HTTP (the time includes the request's whole way through the server). Met when every
 * filter's p95 is at most 50 ms.
 */
import { join } from 'node:path';
import { openDatabase } from '../../src/infra/store/database.js';
import {
  type AtelierEnv,
  atelierEnv,
  createAccount,
  removeTarget,
  runCli,
  serverArgs,
  startAtelier,
} from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import { createBenchDatabase, dropBenchDatabase } from '../lib/postgres.js';
import { failedRow, type RowResult } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { type LogAccount, seedTaskLog } from '../lib/task-log-seed.js';

const GOAL_MS = 50;
const SHARES = [50, 30, 15, 4, 1];

/** Five accounts with a key each (their shares of the log), and an operator's key. */
async function accountsOf(ctx: BenchContext, target: AtelierEnv, databaseUrl: string) {
  const emails = SHARES.map((_, i) => `log${i}@bench.test`);
  for (const email of emails) createAccount(target, email, ctx.entry);
  const operatorKey = createAccount(target, 'ops@bench.test', ctx.entry);
  runCli(target, ['accounts', 'set-operator', '--email', 'ops@bench.test'], ctx.entry);
  const db = await openDatabase(databaseUrl);
  try {
    const rows = await db
      .selectFrom('accounts as a')
      .innerJoin('api_keys as k', 'k.account_id', 'a.id')
      .select(['a.id', 'a.email', 'k.id as keyId'])
      .where('a.email', 'in', emails)
      .execute();
    const accounts: LogAccount[] = emails.map((email, i) => {
      const row = rows.find((r) => r.email === email);
      if (!row) throw new Error(`no account ${email}`);
      return { id: row.id, keyId: row.keyId, percent: SHARES[i] as number };
    });
    return { accounts, operatorKey };
  } finally {
    await db.destroy();
  }
}

/** The first page of each filter, by name (query strings of GET /api/admin/v1/tasks). */
function filters(accounts: LogAccount[], firstCreatedAt: number, count: number) {
  const rare = accounts[4] as LogAccount;
  const middle = firstCreatedAt + Math.floor(count / 2) * 1000;
  return {
    'every task': {},
    'status failed': { status: 'failed' },
    'account (1 % of tasks)': { account: rare.id },
    'account by e-mail text': { account: 'log3@' },
    'key (4 % of tasks)': { key: (accounts[3] as LogAccount).keyId },
    model: { model: 'flux-dev' },
    route: { route: 'gemini/gemini-2.5-flash-image' },
    provider: { provider: 'fal' },
    'an hour in the middle': { since: String(middle), until: String(middle + 3_600_000) },
    'error text': { error: 'timeout' },
    'error text no task has': { error: 'no such error' },
    'failed + error text + account (1 %)': { status: 'failed', error: 'policy', account: rare.id },
    'route + an hour + failed': {
      route: 'openai/gpt-image-1',
      status: 'failed',
      since: String(middle),
      until: String(middle + 3_600_000),
    },
  } satisfies Record<string, Record<string, string>>;
}

async function timed(
  url: string,
  operatorKey: string,
): Promise<{ ms: number; body: { tasks?: unknown[]; next_cursor?: string | null } }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${operatorKey}` } });
  const body = (await res.json()) as { tasks?: unknown[]; next_cursor?: string | null };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

/** p50 and p95 of `rounds` requests to `url` after 3 warm-ups; the last page's row count. */
async function sample(url: string, operatorKey: string, rounds: number) {
  for (let i = 0; i < 3; i++) await timed(url, operatorKey);
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < rounds; i++) {
    const { ms, body } = await timed(url, operatorKey);
    times.push(ms);
    rows = body.tasks?.length ?? 0;
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), rows };
}

/** The cursor of page `depth` of the unfiltered log. */
async function deepCursor(baseUrl: string, operatorKey: string, depth: number): Promise<string> {
  let cursor = '';
  for (let page = 1; page < depth; page++) {
    const { body } = await timed(
      `${baseUrl}/api/admin/v1/tasks${cursor ? `?cursor=${cursor}` : ''}`,
      operatorKey,
    );
    cursor = body.next_cursor ?? '';
  }
  return cursor;
}

async function measure(ctx: BenchContext, store: 'sqlite' | 'postgres', databaseUrl: string | undefined) {
  const count = ctx.quick ? 100_000 : 1_000_000;
  const target = await atelierEnv(databaseUrl ? { ATELIER_DATABASE_URL: databaseUrl } : {});
  try {
    const url = databaseUrl ?? join(target.dataDir, 'atelier.db');
    const { accounts, operatorKey } = await accountsOf(ctx, target, url);
    const seed = await seedTaskLog(url, accounts, count);
    ctx.log(`A1 (${store}): seeded ${count} tasks in ${seed.seconds.toFixed(1)} s`);
    const server = await startAtelier(target, serverArgs(ctx.entry));
    try {
      const rounds = ctx.quick ? 10 : 25;
      const results: Record<string, { p50: number; p95: number; rows: number }> = {};
      for (const [name, query] of Object.entries(filters(accounts, seed.firstCreatedAt, count))) {
        const qs = new URLSearchParams(query).toString();
        results[name] = await sample(`${target.baseUrl}/api/admin/v1/tasks?${qs}`, operatorKey, rounds);
      }
      const cursor = await deepCursor(target.baseUrl, operatorKey, 200);
      results['page 200 by cursor'] = await sample(
        `${target.baseUrl}/api/admin/v1/tasks?cursor=${cursor}`,
        operatorKey,
        rounds,
      );
      results["a task's life"] = await sample(
        `${target.baseUrl}/api/admin/v1/tasks/tsk_log_700`,
        operatorKey,
        rounds,
      );
      return { count, seedSeconds: seed.seconds, results };
    } finally {
      await server.stop();
    }
  } finally {
    removeTarget(target);
  }
}

/** A1 on one store; PostgreSQL on a fresh database (skipped when none is reachable). */
export async function taskLogRow(
  ctx: BenchContext,
  store: 'sqlite' | 'postgres',
): Promise<RowResult | undefined> {
  const base = {
    id: 'A1',
    what: 'task log page at a million tasks (worst filter p95)',
    store,
    before: 'no task log (issue 43)',
    target: `every filter's first page p95 ≤ ${GOAL_MS} ms`,
  };
  const database = store === 'postgres' ? await createBenchDatabase() : undefined;
  if (store === 'postgres' && !database) return undefined;
  try {
    const { count, seedSeconds, results } = await measure(ctx, store, database?.url);
    const worst = Object.entries(results).reduce((a, b) => (b[1].p95 > a[1].p95 ? b : a));
    const p50s = Object.values(results).map((r) => r.p50);
    return {
      ...base,
      measured: `${worst[1].p95.toFixed(1)} ms (${worst[0]}); p50 ${Math.min(...p50s).toFixed(1)}–${Math.max(...p50s).toFixed(1)} ms over ${Object.keys(results).length} queries, ${count.toLocaleString('en')} tasks`,
      met: Object.values(results).every((r) => r.p95 <= GOAL_MS),
      details: { count, seedSeconds, results },
    };
  } catch (error) {
    return failedRow(base, error);
  } finally {
    if (database) await dropBenchDatabase(database.name);
  }
}
