// Compares the two SQLite drivers that run on every supported Node line — better-sqlite3 (Node-API)
// and Node's built-in node:sqlite — on Atelier's hottest reads: the API-key lookup and a task read.
// Each read runs both as Kysely's SqliteDialect issues it today (a statement prepared per execution)
// and with a prepared statement reused. Rounds alternate between the drivers; medians are reported.
// Usage: node --import tsx bench/sqlite-drivers.ts [--rounds N]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite from 'better-sqlite3';

interface Driver {
  name: string;
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown };
  close(): void;
}

function openBetterSqlite(file: string): Driver {
  const db = new BetterSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return {
    name: 'better-sqlite3',
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => db.prepare(sql),
    close: () => db.close(),
  };
}

async function openNodeSqlite(file: string): Promise<Driver> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  return {
    name: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      return {
        get: (...params) => statement.get(...(params as string[])),
        run: (...params) => statement.run(...(params as string[])),
      };
    },
    close: () => db.close(),
  };
}

const SCHEMA = `
  CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, tier TEXT NOT NULL,
    api_key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
  CREATE TABLE tasks (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL,
    progress INTEGER NOT NULL, error TEXT, image_url TEXT, width INTEGER, height INTEGER,
    content_type TEXT, bytes INTEGER, created_at INTEGER NOT NULL);`;
const KEY_LOOKUP = 'select id, email, tier from accounts where api_key_hash = ?';
const TASK_READ =
  'select id, status, progress, error, image_url, width, height, content_type, bytes from tasks where id = ? and account_id = ?';

function seed(driver: Driver, accounts: number, tasks: number) {
  driver.exec(SCHEMA);
  const keys: string[] = [];
  const taskIds: Array<[string, string]> = [];
  const insertAccount = driver.prepare(
    'insert into accounts (id, email, tier, api_key_hash, created_at) values (?, ?, ?, ?, ?)',
  );
  const insertTask = driver.prepare(
    'insert into tasks (id, account_id, status, progress, image_url, width, height, content_type, bytes, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  driver.exec('BEGIN');
  for (let i = 0; i < accounts; i++) {
    const hash = randomBytes(32).toString('hex');
    keys.push(hash);
    insertAccount.run(`acc_${i}`, `u${i}@example.com`, 'standard', hash, Date.now());
  }
  for (let i = 0; i < tasks; i++) {
    const id = `tsk_${randomBytes(12).toString('base64url')}`;
    const account = `acc_${i % accounts}`;
    taskIds.push([id, account]);
    insertTask.run(id, account, 'completed', 100, `http://x/files/${id}.png`, 1024, 1024, 'image/png', 1, i);
  }
  driver.exec('COMMIT');
  return { keys, taskIds };
}

function opsPerSecond(iterations: number, body: (i: number) => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) body(i);
  return iterations / (Number(process.hrtime.bigint() - started) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
  const rounds = Number(values.rounds);
  const dir = mkdtempSync(join(tmpdir(), 'atelier-sqlite-bench-'));
  const drivers = [openBetterSqlite(join(dir, 'a.db')), await openNodeSqlite(join(dir, 'b.db'))];
  const data = drivers.map((d) => seed(d, 1_000, 50_000));
  const cases = [
    'key lookup, prepare each',
    'key lookup, reused',
    'task read, prepare each',
    'task read, reused',
  ];
  const results = new Map<string, number[]>();
  const n = 50_000;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      const driver = drivers[index] as Driver;
      const { keys, taskIds } = data[index] as ReturnType<typeof seed>;
      const key = (i: number) => keys[i % keys.length];
      const task = (i: number) => taskIds[(i * 7919) % taskIds.length] as [string, string];
      const lookup = driver.prepare(KEY_LOOKUP);
      const read = driver.prepare(TASK_READ);
      const figures = [
        opsPerSecond(n, (i) => driver.prepare(KEY_LOOKUP).get(key(i))),
        opsPerSecond(n, (i) => lookup.get(key(i))),
        opsPerSecond(n, (i) => driver.prepare(TASK_READ).get(...task(i))),
        opsPerSecond(n, (i) => read.get(...task(i))),
      ];
      figures.forEach((value, c) => {
        const label = `${driver.name}|${cases[c]}`;
        results.set(label, [...(results.get(label) ?? []), value]);
      });
    }
  }
  console.log(`SQLite drivers on node ${process.version} (${rounds} alternating rounds, ${n} reads each)`);
  console.log('| read | better-sqlite3 ops/s | node:sqlite ops/s | node:sqlite ÷ better-sqlite3 |');
  console.log('|---|---|---|---|');
  for (const label of cases) {
    const a = median(results.get(`better-sqlite3|${label}`) ?? []);
    const b = median(results.get(`node:sqlite|${label}`) ?? []);
    console.log(`| ${label} | ${Math.round(a)} | ${Math.round(b)} | ${(b / a).toFixed(2)} |`);
  }
  for (const driver of drivers) driver.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
