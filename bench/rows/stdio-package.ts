/**
 * M2: the stdio package as a person installing it meets it (issue 46): installed size and packages
 * from its tarball, and the cold `npx` start (an empty npm cache) to the first tools/list answer.
 * `scripts/measure-mcp-package.mjs` does the measuring in its own process; this row reads its JSON.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../lib/atelier-process.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { formatSpread, spreadOf } from '../lib/stats.js';

type Runs = { runs: number[]; cpuSeconds?: number[] };
type Measured = {
  installedBytes: number;
  installedDiskKiB: number;
  packagesInstalled: number;
  coldNpxToToolsListMs: Runs;
  coldNpxRunningTrueMs: Runs;
  installedToToolsListMs: Runs;
};

const seconds = (runs: number[]) => spreadOf(runs.map((ms) => ms / 1000));
/** ", 2.3 s CPU": the median CPU seconds where GNU time measured them (they hardly move with the load). */
const cpu = (figures: Runs) =>
  figures.cpuSeconds ? `, ${formatSpread(spreadOf(figures.cpuSeconds), 1)} s CPU` : '';

export async function stdioPackage(ctx: BenchContext): Promise<RowResult> {
  const script = join(ROOT, 'scripts', 'measure-mcp-package.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--runs', ctx.quick ? '2' : '3'], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  const m = JSON.parse(stdout) as Measured;
  const cold = seconds(m.coldNpxToToolsListMs.runs);
  const npmOnly = seconds(m.coldNpxRunningTrueMs.runs);
  const installed = seconds(m.installedToToolsListMs.runs);
  const mb = (m.installedBytes / 1e6).toFixed(2);
  return {
    id: 'M2',
    what: 'the stdio package: installed size, packages, cold `npx` start to the first tools/list',
    store: '-',
    before: '17.6 MB (29.8 MB on disk), 99 packages; cold npx 10.3 s',
    target: '< 5 MB installed; cold npx < 3 s',
    measured:
      `${mb} MB (${m.installedDiskKiB} KiB on disk), ${m.packagesInstalled} package(s); cold npx ` +
      `${formatSpread(cold, 1)} s${cpu(m.coldNpxToToolsListMs)} (npx running \`true\`: ${formatSpread(npmOnly, 1)} s` +
      `${cpu(m.coldNpxRunningTrueMs)}); installed ${formatSpread(installed, 2)} s${cpu(m.installedToToolsListMs)}`,
    met: m.installedBytes < 5e6 && cold.median < 3,
    details: { ...m },
  };
}
