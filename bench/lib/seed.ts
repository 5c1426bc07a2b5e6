/**
 * Bulk seeds for the rows that need a large table (P6: 10,000 and 100,000 generations; P8: 400,000
 * task rows), written straight into the store before the server under test starts. The schema is
 * the project's own (openDatabase runs the migrations); on SQLite the rows go through one prepared
 * INSERT per table inside a transaction, on PostgreSQL through Kysely in batches. Every generation
 * has `tasksPerGeneration` completed tasks. A counter the service keeps elsewhere would not see
 * these rows: the P6 row checks `total` from the history route after the server starts.
 */
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { isPostgresUrl, openDatabase } from '../../src/infra/store/database.js';
import type { GenerationsTable } from '../../src/infra/store/schema/generations.js';
import type { TasksTable } from '../../src/infra/store/schema/tasks.js';

const BATCH = 500;
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

export interface SeedResult {
  generations: number;
  tasks: number;
  seconds: number;
}

type Rows = { generations: GenerationsTable[]; tasks: TasksTable[] };

/** The rows of generations `from`…`to`-1, one second apart, ending about now. */
function rowsOf(accountId: string, from: number, to: number, total: number, perGeneration: number): Rows {
  const rows: Rows = { generations: [], tasks: [] };
  const base = Date.now() - total * 1000;
  for (let i = from; i < to; i++) {
    const at = base + i * 1000;
    const generationId = id('gen');
    rows.generations.push({
      id: generationId,
      account_id: accountId,
      source: 'api',
      prompt: `seeded history item ${i}`,
      model: 'flash',
      mode: 'text',
      aspect: '1:1',
      image_size: '1K',
      image_count: perGeneration,
      refs_json: '[]',
      ref_keys_json: '[]',
      rejected: 0,
      created_at: at,
      deleted_at: null,
    });
    for (let idx = 0; idx < perGeneration; idx++) {
      const taskId = id('tsk');
      rows.tasks.push({
        id: taskId,
        generation_id: generationId,
        account_id: accountId,
        idx,
        provider: 'local',
        upstream_model: 'local-v1',
        model: 'flash',
        status: 'completed',
        progress: 100,
        error: null,
        image_url: `http://127.0.0.1/files/seed/${taskId}.png`,
        blob_key: `seed/${taskId}.png`,
        width: 1024,
        height: 1024,
        content_type: 'image/png',
        bytes: 1000,
        upstream_id: null,
        attempts: 1,
        needs_reconcile: 0,
        polls: 1,
        next_run_at: at,
        lease_owner: null,
        lease_expires_at: null,
        deadline_at: at + 1_200_000,
        started_at: at,
        finished_at: at + 500,
        created_at: at,
        waiting_for: null,
        capacity_pool: null,
        waiting_since: null,
        cost_micros: 0,
        cost_source: 'catalog_price',
        cost_reserved_micros: 0,
        api_key_id: null,
        upstream_key_id: null,
        partial_images: 0,
        partial_frames: 0,
        usage_json: null,
        updated_at: at + 500,
      });
    }
  }
  return rows;
}

/** History's counters move with the rows the seed adds (the server keeps them in its own writes). */
function countSeeded(accountId: string, generations: number): string {
  if (!/^[\w-]+$/.test(accountId)) throw new Error(`unexpected account id ${accountId}`);
  return `INSERT INTO generation_counts (account_id, history_total, saved_total) VALUES ('${accountId}', ${generations}, ${generations})
    ON CONFLICT (account_id) DO UPDATE SET history_total = generation_counts.history_total + ${generations},
    saved_total = generation_counts.saved_total + ${generations}`;
}

/** SQLite: one prepared INSERT per table, every batch in one transaction. */
function writeSqlite(path: string, batches: () => Iterable<Rows>, countStatement: string): void {
  const sqlite = new SQLite(path);
  sqlite.pragma('busy_timeout = 5000');
  const insertOf = (table: string, sample: object) => {
    const columns = Object.keys(sample);
    return sqlite.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    );
  };
  try {
    let inserts: { generation: SQLite.Statement; task: SQLite.Statement } | undefined;
    sqlite.transaction(() => {
      for (const rows of batches()) {
        inserts ??= {
          generation: insertOf('generations', rows.generations[0] as object),
          task: insertOf('tasks', rows.tasks[0] as object),
        };
        for (const row of rows.generations) inserts.generation.run(row);
        for (const row of rows.tasks) inserts.task.run(row);
      }
      sqlite.prepare(countStatement).run();
    })();
  } finally {
    sqlite.close();
  }
}

/** Adds `generations` history items with their completed tasks to the account with `email`. */
export async function seedHistory(
  databaseUrl: string,
  email: string,
  generations: number,
  tasksPerGeneration: number,
): Promise<SeedResult> {
  const started = performance.now();
  const db = await openDatabase(databaseUrl);
  let open = true;
  try {
    const account = await db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    function* batches(): Iterable<Rows> {
      for (let from = 0; from < generations; from += BATCH) {
        yield rowsOf(account.id, from, Math.min(generations, from + BATCH), generations, tasksPerGeneration);
      }
    }
    if (isPostgresUrl(databaseUrl)) {
      await db.transaction().execute(async (trx) => {
        for (const rows of batches()) {
          await trx.insertInto('generations').values(rows.generations).execute();
          for (let t = 0; t < rows.tasks.length; t += BATCH) {
            await trx
              .insertInto('tasks')
              .values(rows.tasks.slice(t, t + BATCH))
              .execute();
          }
        }
        await sql.raw(countSeeded(account.id, generations)).execute(trx);
      });
    } else {
      open = false;
      await db.destroy(); // the file is written by a driver of its own, with one prepared statement per table
      writeSqlite(databaseUrl, batches, countSeeded(account.id, generations));
    }
  } finally {
    if (open) await db.destroy();
  }
  return {
    generations,
    tasks: generations * tasksPerGeneration,
    seconds: (performance.now() - started) / 1000,
  };
}
