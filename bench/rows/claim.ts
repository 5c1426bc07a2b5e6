/**
 * F1: the cost of a fair claim (issue 39). One account's 5,000 unfinished tasks (2,000 of them under
 * a live lease, as a worker full of renders holds them) and another account's task, on SQLite: the
 * time of the fair pick of one task (src/capabilities/tasks/fair-claim.ts) over the time of the earliest-due pick
 * it replaced, in alternating rounds of the same run. The fair pick must name the other account's
 * task; the earliest-due one names the backlog's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { fairDueIds } from '../../src/capabilities/tasks/fair-claim.js';
import { isUnfinished } from '../../src/capabilities/tasks/unfinished-tasks.js';
import { openDatabase } from '../../src/infra/store/database.js';
import type { BenchContext } from '../lib/context.js';
import type { RowResult } from '../lib/report.js';
import { percentile } from '../lib/stats.js';

const median = (values: number[]) => percentile(values, 50);

const BACKLOG = 5_000;
const HELD = 2_000;

export async function claimCost(ctx: BenchContext): Promise<RowResult> {
  const dir = await mkdtemp(join(tmpdir(), 'atelier-bench-claim-'));
  const db = await openDatabase(join(dir, 'atelier.db'));
  try {
    const now = Date.now();
    // Rows shaped as the engine sees them; the foreign keys are not what is measured.
    await sql`pragma foreign_keys = off`.execute(db);
    const row = (i: number, account: string, held: boolean) => ({
      id: `tsk_${String(i).padStart(6, '0')}`,
      generation_id: 'gen_bench',
      account_id: account,
      idx: i,
      status: 'in_progress' as const,
      progress: 10,
      provider: 'local',
      upstream_model: 'local-v1',
      next_run_at: now - 100_000 + i,
      lease_owner: held ? 'wrk_bench' : null,
      lease_expires_at: held ? now + 60_000 : null,
      deadline_at: now + 600_000,
      created_at: now - 100_000 + i,
      updated_at: now,
    });
    const rows = Array.from({ length: BACKLOG }, (_, i) => row(i, 'acc_heavy', i < HELD));
    rows.push(row(BACKLOG, 'acc_light', false));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('tasks')
        .values(rows.slice(i, i + 500) as never)
        .execute();
    const earliest = () =>
      db
        .selectFrom('tasks')
        .select('id')
        .where(isUnfinished)
        .where('next_run_at', '<=', now)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
        .orderBy('next_run_at')
        .limit(1)
        .execute();
    const fair = () => fairDueIds(db, now, 1).execute();
    const time = async (pick: () => Promise<Array<{ id: string }>>) => {
      const start = performance.now();
      for (let i = 0; i < 50; i++) await pick();
      return (performance.now() - start) / 50;
    };
    const picked = (await fair())[0]?.id;
    const ratios: number[] = [];
    const fairMs: number[] = [];
    const earliestMs: number[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      const before = await time(earliest);
      const after = await time(fair);
      earliestMs.push(before);
      fairMs.push(after);
      ratios.push(after / before);
    }
    const ms = (values: number[]) => `${median(values).toFixed(2)} ms`;
    return {
      id: 'F1',
      what: 'claim of 1 task, 5,000 unfinished',
      store: 'sqlite',
      before: 'another account claimed after the backlog',
      target: 'picks the other account',
      measured: `fair ${ms(fairMs)} / earliest-due ${ms(earliestMs)} = ${median(ratios).toFixed(1)}× (${Math.min(...ratios).toFixed(1)}–${Math.max(...ratios).toFixed(1)})`,
      met: picked === rows[BACKLOG]?.id,
      details: { fairMs, earliestMs, ratios, picked: picked ?? '' },
    };
  } finally {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
