import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { isPostgresUrl } from './database-url.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import { withStatementCache } from './statement-cache.js';

export type Db = Kysely<Database>;
export { type Dialect, dialectOf } from './dialect.js';
export { isPostgresUrl };

/**
 * Opens the database named by `databaseUrl` — PostgreSQL for a `postgres://` URL (a pool), else a
 * SQLite file (WAL) — runs the migrations, and returns Kysely over it.
 */
export async function openDatabase(databaseUrl: string): Promise<Db> {
  const db = isPostgresUrl(databaseUrl) ? await openPostgres(databaseUrl) : openSqlite(databaseUrl);
  try {
    // Genuine: migrations are written against no schema (they must not change when schema.ts does).
    await migrateToLatest(db as unknown as Kysely<unknown>);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** `pg` (postgres-pool.ts) is loaded here, for a PostgreSQL URL only: a start on SQLite never loads it. */
async function openPostgres(databaseUrl: string): Promise<Db> {
  const { createPostgresPool, nulSafePool } = await import('./postgres-pool.js');
  const pool = nulSafePool(createPostgresPool(databaseUrl));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function openSqlite(databaseUrl: string): Db {
  if (databaseUrl !== ':memory:') createPrivateFile(databaseUrl);
  const sqlite = new SQLite(databaseUrl);
  sqlite.pragma('journal_mode = WAL');
  // The CLI and the server may write the same file at once: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let thisTurn: number | undefined;
  const endTurn = () => {
    thisTurn = undefined;
  };
  dataVersions.set(db, () => {
    if (thisTurn === undefined) {
      thisTurn = dataVersion.get() as number;
      setImmediate(endTurn);
    }
    return thisTurn;
  });
  return db;
}

const dataVersions = new WeakMap<Db, () => number>();

/**
 * On SQLite, a reader of `PRAGMA data_version`: it changes whenever another connection (another
 * process: the CLI, a second node on the same file) has committed since, and never for this
 * connection's own writes. Synchronous, and read once per turn of the event loop (the pragma costs
 * a few µs, and everything kept in memory asks for it on every request): the requests handled in
 * one turn share the reading, as if they had all arrived at its start — a commit made elsewhere
 * during the turn is concurrent with them, and every later turn sees it. Undefined on PostgreSQL.
 */
export function sqliteDataVersion(db: Db): (() => number) | undefined {
  return dataVersions.get(db);
}

/**
 * Security: the database holds password and key hashes, sealed secrets and prompts. Its directory is
 * created 0700 and the file 0600; SQLite gives the -wal and -shm files it creates the database
 * file's mode. Files of an older install (a crash can leave -wal and -shm behind) are narrowed too.
 */
function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
