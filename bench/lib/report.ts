/** One row of the performance table, how it prints, and the JSON written to bench/results/. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './atelier-process.js';
import type { MachineInfo } from './machine.js';

export interface RowResult {
  /** P1…P9 */
  id: string;
  what: string;
  store: 'sqlite' | 'postgres' | '-';
  /** The figure for the code before the fixes (issue 14). */
  before: string;
  target: string;
  /** The figure of this run: medians, with the min–max spread of the rounds. */
  measured: string;
  /** undefined when the row could not be judged (skipped, failed). */
  met: boolean | undefined;
  /** Raw figures of every round. */
  details: Record<string, unknown>;
  note?: string;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  mode: 'quick' | 'full';
  machine: MachineInfo;
  loadAverageAtEnd: number[];
  warnings: string[];
  server: string;
  rows: RowResult[];
}

const verdict = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'met' : 'NOT met');

/** The table as Markdown (printed, and pasted into the README). */
export function markdownTable(rows: RowResult[]): string {
  const lines = [
    '| id | what | store | before (issue 14) | measured: median (min–max) | target | |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const measured = row.note ? `${row.measured} — ${row.note}` : row.measured;
    lines.push(
      `| ${row.id} | ${row.what} | ${row.store} | ${row.before} | ${measured} | ${row.target} | ${verdict(row.met)} |`,
    );
  }
  return lines.join('\n');
}

/** Writes the report as JSON, in the repository's format (Biome), so that `npm run check` stays clean. */
export function writeReport(path: string, report: BenchReport): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  spawnSync(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', path], {
    cwd: ROOT,
    stdio: 'ignore',
  });
}

/** A row that could not run: shown in the table with the reason. */
export function failedRow(
  base: Pick<RowResult, 'id' | 'what' | 'store' | 'before' | 'target'>,
  error: unknown,
) {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...base,
    measured: 'failed',
    met: undefined,
    details: {},
    note: message.split('\n')[0],
  } as RowResult;
}
