/**
 * P9: cold start of the built server to its first 200 on /healthz (a fresh data dir each time, so
 * the migrations run), and the same through `npm start` on a current build, which must not rebuild.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  atelierEnv,
  prepareServerEntry,
  ROOT,
  removeTarget,
  serverArgs,
  startAtelier,
} from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { formatSpread, spreadOf } from '../lib/stats.js';

async function coldStarts(rounds: number, command: string, args: string[], beforeEach = () => {}) {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    beforeEach();
    const target = await atelierEnv();
    try {
      const server = await startAtelier(target, args, command);
      times.push(server.startMs / 1000);
      await server.stop();
    } finally {
      removeTarget(target);
    }
  }
  return times;
}

/** Issue 48's goal for `npm start` on a built tree, and issue 14's for the built entry (medians). */
const GOAL_SECONDS = 1;
const ISSUE_14_SECONDS = 0.8;

const stampTime = () => statSync(join(ROOT, 'dist', '.build-stamp'), { throwIfNoEntry: false })?.mtimeMs;

/** P9: `node dist/src/server.js` and `npm start`, fresh data dir per start. */
export async function coldStart(ctx: BenchContext): Promise<RowResult> {
  const base = {
    id: 'P9',
    what: 'cold start, built, to first 200 on `/healthz` (and `npm start`)',
    store: 'sqlite' as const,
    before: '1.1 s (`npm start`: 4.3 s, it rebuilds every time)',
    // Issue 14's target for the built entry, and issue 48's goal for `npm start` (its own figure,
    // 1.4 s, was `npm start` on a built tree): both are judged.
    target: '≤ 0.8 s (issue 14); `npm start` ≤ 1 s (issue 48) and never rebuilds a current build',
  };
  if (ctx.entry.kind !== 'built') {
    return { ...base, measured: 'not run', met: undefined, details: {}, note: ctx.entry.reason };
  }
  const built = spreadOf(await coldStarts(ctx.quick ? 3 : 5, process.execPath, serverArgs(ctx.entry)));
  // Other work in the same tree may touch src/ during the run: the build is made current (untimed)
  // before each `npm start`, so a rebuild seen here is `npm start` rebuilding a current build.
  let rebuilt = false;
  let stampBefore: number | undefined;
  const npmStart = spreadOf(
    await coldStarts(ctx.quick ? 1 : 3, 'npm', ['start', '--silent'], () => {
      if (stampBefore !== undefined && stampTime() !== stampBefore) rebuilt = true;
      prepareServerEntry();
      stampBefore = stampTime();
    }),
  );
  if (stampTime() !== stampBefore) rebuilt = true;
  return {
    ...base,
    measured: `${formatSpread(built, 2)} s; \`npm start\` ${formatSpread(npmStart, 2)} s, ${rebuilt ? 'REBUILT' : 'no rebuild'}`,
    met: built.median <= ISSUE_14_SECONDS && npmStart.median <= GOAL_SECONDS && !rebuilt,
    details: { builtSeconds: built, npmStartSeconds: npmStart, npmStartRebuilt: rebuilt },
  };
}
