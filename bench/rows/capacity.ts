/**
 * Q1–Q4: upstream capacity on one node (issue 27), each row in its own process running
 * bench/capacity.ts (the OpenAI stand-in behind its own limits, SQLite, the default configuration):
 * tasks per second against a zero-latency upstream, calls in flight against a 30 s upstream and RSS
 * per call, the drain of 1,000 tasks through an upstream limited to 600 calls per minute (goal: the
 * upstream's own ideal over the time taken ≥ 0.9), and 1,000 five-second images (goal ≤ 10 s).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CapacityFigure } from '../capacity.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { attempt } from '../suites.js';

const SCRIPT = fileURLToPath(new URL('../capacity.ts', import.meta.url));

const ROWS = [
  {
    id: 'Q1',
    name: 'throughput',
    what: 'tasks/s, zero-latency upstream',
    target: 'a count',
    before: '8 in flight',
  },
  {
    id: 'Q2',
    name: 'inflight',
    what: 'in flight vs a 30 s upstream',
    target: '2,000 (the default)',
    before: '8',
  },
  { id: 'Q3', name: 'drain', what: 'drain 1,000 at 600/min', target: '≥ 0.9', before: 'tasks failed' },
  { id: 'Q4', name: 'five', what: '1,000 five-second images', target: '≤ 10 s', before: '~625 s' },
  {
    id: 'Q5',
    name: 'minute',
    what: 'drain 300 at 600/min (headers)',
    target: '≥ 0.9, ≤ 0.05 refused/task',
    before: '0.78, 0.35 refused/task (issue 39: 60 at 120/min)',
  },
  {
    id: 'Q6',
    name: 'recovery',
    what: 'episode end → full width',
    target: '≤ 60 s',
    before: 'hours (1 in flight, +1 per 20 successes)',
  },
  {
    id: 'Q7',
    name: 'five-recovered',
    what: '1,000 five-second, recovered pool',
    target: '≤ 10 s',
    before: '8 done after 42.7 s',
  },
] as const;

function figureOf(name: string): Promise<CapacityFigure> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SCRIPT, name, '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`bench/capacity.ts ${name} exited ${code}`));
      else resolve(JSON.parse(line) as CapacityFigure);
    });
  });
}

/** The capacity rows wanted, each from a fresh process. */
export async function capacityRows(ctx: BenchContext, wanted: (id: string) => boolean): Promise<RowResult[]> {
  const rows: RowResult[] = [];
  for (const row of ROWS) {
    if (!wanted(row.id)) continue;
    rows.push(
      await attempt(ctx, { id: row.id, what: row.what, store: 'sqlite' }, async () => {
        const figure = await figureOf(row.name);
        return {
          id: row.id,
          what: row.what,
          store: 'sqlite',
          before: row.before,
          target: row.target,
          ...figure,
        };
      }),
    );
  }
  return rows;
}
