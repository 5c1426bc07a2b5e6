/** P5: four concurrent 25 MB uploads, peak RSS growth of the server (bench/upload-route-memory.ts). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { formatSpread, spreadOf } from '../lib/stats.js';

/** Runs the upload memory bench in a fresh process per round and reads its "rise" line. */
export function uploadMemory(ctx: BenchContext): RowResult {
  const rounds = ctx.quick ? 1 : 3;
  const rises: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/upload-route-memory.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const match = /rise (-?[\d.]+) MB/.exec(run.stdout);
    if (!match)
      throw new Error(`upload-route-memory.ts printed no rise (${run.status}): ${run.stderr.slice(0, 300)}`);
    rises.push(Number(match[1]));
  }
  const rise = spreadOf(rises);
  return {
    id: 'P5',
    what: 'four concurrent 25 MB uploads, peak RSS growth',
    store: 'sqlite',
    before: '+32 MB (route)',
    target: '≤ 64 MB',
    measured: `+${formatSpread(rise, 1)} MB`,
    met: rise.median <= 64,
    details: { riseMb: rise },
  };
}
