// npm run bench [-- --quick] [-- --only P1,P6] [-- --postgres | --no-postgres] [-- --out file.json] [-- --soak-minutes 30]
// Runs the performance table of issue 14 (P1–P9) beside its baselines in one run: the server under
// test, the bare node:http baseline and the load generator (autocannon) each in their own process;
// ratios from alternating rounds (median and min–max). Prints the table and writes
// bench/results/latest.json with the machine's details. Method: docs/benchmarks.md.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareServerEntry, ROOT } from './lib/atelier-process.js';
import type { BenchContext } from './lib/context.js';
import { startBareServer, startLoadGenerator } from './lib/load.js';
import { loadWarning, machineInfo } from './lib/machine.js';
import { type BenchReport, markdownTable, type RowResult, writeReport } from './lib/report.js';
import { capacityRows } from './rows/capacity.js';
import { claimCost } from './rows/claim.js';
import { soakRow } from './rows/soak.js';
import { coldStart } from './rows/startup.js';
import { stdioPackage } from './rows/stdio-package.js';
import { syncImageRows } from './rows/sync-image.js';
import { taskLogRow } from './rows/task-log.js';
import { uploadMemory } from './rows/upload.js';
import { upstreamCallsPerTask } from './rows/upstream.js';
import { attempt, largeTableSuite, postgresSuite, sqliteSuite } from './suites.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    'no-postgres': { type: 'boolean', default: false },
    out: { type: 'string', default: join(ROOT, 'bench/results/latest.json') },
    'soak-minutes': { type: 'string' },
  },
});
const only = values.only?.split(',').map((id) => id.trim().toUpperCase());
const wanted = (id: string) => !only || only.includes(id);
const quick = values.quick;
const log = (message: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const startedAt = new Date();
const machine = machineInfo();
const warnings: string[] = [];
const loadSamples: number[] = [];
const noteLoad = () => loadSamples.push(loadavg()[0] ?? 0);
noteLoad();
if (machine.gitDirty)
  warnings.push('the working tree has uncommitted changes: the figures are of the tree, not of the commit');

const entry = prepareServerEntry();
if (entry.kind === 'sources') warnings.push(`server run from the sources through tsx: ${entry.reason}`);
log(
  `${quick ? 'quick' : 'full'} run on ${machine.cpuModel} × ${machine.cores}, node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')}`,
);

const load = await startLoadGenerator();
const bare = await startBareServer();
const ctx: BenchContext = {
  quick,
  rounds: quick ? 3 : 5,
  seconds: quick ? 1 : 5,
  connections: 64,
  load,
  bare,
  entry,
  log,
};

const rows: RowResult[] = [];
const postgres = !values['no-postgres'] && (!quick || values.postgres);
if (!postgres) {
  warnings.push(
    `PostgreSQL rows not run (${quick ? '--quick runs them only with --postgres' : '--no-postgres'})`,
  );
}
// Each step starts its own server (or process); the load average is sampled between steps.
const steps: Array<[boolean, () => Promise<RowResult[]>]> = [
  // The gateway's own milliseconds on one synchronous image (issue 48), on each store: first, before
  // the rows that write and delete thousands of files (on a disk that trims on delete, every file
  // created for a while after waits on the trims: docs/benchmarks.md, S1).
  [wanted('S1'), () => syncImageRows(ctx, postgres)],
  [['C1', 'P1', 'P2', 'P4', 'P6', 'P7', 'P10'].some(wanted), () => sqliteSuite(ctx, wanted)],
  [
    wanted('P3'),
    async () => [
      await attempt(ctx, { id: 'P3', what: 'upstream calls', store: 'sqlite' }, upstreamCallsPerTask),
    ],
  ],
  [
    wanted('P5'),
    async () => [
      await attempt(ctx, { id: 'P5', what: 'upload memory', store: 'sqlite' }, async (c) => uploadMemory(c)),
    ],
  ],
  [wanted('P8') || (wanted('P6') && !quick), () => largeTableSuite(ctx, wanted)],
  [
    wanted('P9'),
    async () => [await attempt(ctx, { id: 'P9', what: 'cold start', store: 'sqlite' }, coldStart)],
  ],
  [postgres && ['P1', 'P2', 'P6', 'P10'].some(wanted), () => postgresSuite(ctx, wanted)],
  // Upstream capacity (issue 27): each row in its own process, ~2 minutes in all.
  [['Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7'].some(wanted), () => capacityRows(ctx, wanted)],
  // The operator's task log at a million tasks (issue 43), on each store.
  [
    wanted('A1'),
    async () => {
      const rows = [await taskLogRow(ctx, 'sqlite')];
      if (postgres) rows.push(await taskLogRow(ctx, 'postgres'));
      return rows.filter((row) => row !== undefined);
    },
  ],
  // Fair claims (issue 39): the pick's cost beside the earliest-due pick it replaced.
  [
    wanted('F1'),
    async () => [await attempt(ctx, { id: 'F1', what: 'claim of 1 task', store: 'sqlite' }, claimCost)],
  ],
  // The stdio package (issue 46): packed, installed into an empty folder, started cold through npx.
  [
    wanted('M2'),
    async () => [await attempt(ctx, { id: 'M2', what: 'the stdio package', store: '-' }, stdioPackage)],
  ],
  // Memory under a long run of mixed traffic (issue 47): 30 minutes, half a minute in --quick.
  [
    wanted('M1'),
    async () => {
      const minutes = Number(values['soak-minutes'] ?? (quick ? 0.5 : 30));
      return [
        await attempt(ctx, { id: 'M1', what: 'soak', store: 'sqlite' }, (c) => soakRow(c, { minutes })),
      ];
    },
  ],
];
try {
  for (const [run, step] of steps) {
    if (!run) continue;
    try {
      rows.push(...(await step()));
    } catch (error) {
      // A server that cannot start (the shared tree mid-edit, say) costs its rows, not the run.
      log(`step failed: ${(error as Error).stack}`);
      warnings.push(`a step failed before its rows ran: ${(error as Error).message.split('\n')[0]}`);
    }
    noteLoad();
  }
} finally {
  await load.stop();
  await bare.stop();
}

const loadNote = loadWarning(machine.cores, loadSamples);
if (loadNote) warnings.unshift(loadNote);
for (const id of ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9']) {
  if (wanted(id) && !rows.some((row) => row.id === id)) {
    rows.push({
      id,
      what: '',
      store: '-',
      before: '',
      target: '',
      measured: 'not run',
      met: undefined,
      details: {},
      note: 'see the notes below',
    });
  }
}
const order = (row: RowResult) => `${row.id}${row.store === 'postgres' ? 'b' : 'a'}`;
rows.sort((a, b) => order(a).localeCompare(order(b), 'en', { numeric: true }));
const report: BenchReport = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  mode: quick ? 'quick' : 'full',
  machine,
  loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100),
  warnings,
  server: entry.kind === 'built' ? 'dist/src/server.js (current build)' : 'src/server.ts through tsx',
  rows,
};
writeReport(values.out, report);

const seconds = ((Date.now() - startedAt.getTime()) / 1000).toFixed(0);
console.log(
  `\nAtelier performance (issue 14), ${report.mode} run in ${seconds} s — ${machine.cpuModel}, ${machine.cores} cores, ` +
    `${machine.memoryGb} GB, node ${machine.node}, commit ${machine.gitCommit.slice(0, 10)}${machine.gitDirty ? ' (+ uncommitted changes)' : ''}; ` +
    `load average ${machine.loadAverageAtStart[0]} at start, ${report.loadAverageAtEnd[0]} at end\n`,
);
console.log(markdownTable(rows));
for (const warning of warnings) console.log(`\nNOTE: ${warning}`);
const unmet = rows.filter((row) => row.met === false).map((row) => `${row.id} (${row.store})`);
console.log(
  `\n${unmet.length === 0 ? 'every judged target met' : `targets not met: ${unmet.join(', ')}`}; written to ${values.out}`,
);
