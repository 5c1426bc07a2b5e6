import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { isPostgresUrl } from '../../src/store/database.js';

/**
 * Which store the store/engine/API tests run on: `ATELIER_TEST_STORE=sqlite` (the default, a fresh
 * file per test app) or `postgres` (a fresh database per test app on `ATELIER_TEST_POSTGRES_URL`).
 * `npm test` runs those suites once per store.
 */
export type TestStore = 'sqlite' | 'postgres';

export function testStore(): TestStore {
  const store = process.env.ATELIER_TEST_STORE ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') {
    throw new Error(`ATELIER_TEST_STORE must be sqlite or postgres, not ${JSON.stringify(store)}`);
  }
  return store;
}

/** The server the PostgreSQL tests create their databases on (trust auth, a superuser). */
export function testPostgresUrl(): string {
  return process.env.ATELIER_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * Every database a test creates is named `atelier_t_<run>_<random>`: `npm test` sets the run id and
 * drops whatever its run left behind (a test that crashed before closing), and only that.
 */
export const TEST_DATABASE_PREFIX = 'atelier_t_';

function runId(): string {
  const id = process.env.ATELIER_TEST_RUN_ID ?? 'adhoc';
  if (!/^[a-z0-9]{1,16}$/.test(id)) throw new Error('ATELIER_TEST_RUN_ID must be 1-16 of [a-z0-9]');
  return id;
}

function databaseName(databaseUrl: string): string | undefined {
  if (!isPostgresUrl(databaseUrl)) return undefined;
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  return name.startsWith(TEST_DATABASE_PREFIX) && /^[a-z0-9_]+$/.test(name) ? name : undefined;
}

async function withAdminClient<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * The environment that points a test's config at its own fresh database: nothing on SQLite (the
 * default file in the test's data dir), `ATELIER_DATABASE_URL` of a new empty database on PostgreSQL.
 */
export async function testDatabaseEnv(): Promise<Record<string, string>> {
  if (testStore() === 'sqlite') return {};
  return { ATELIER_DATABASE_URL: await createTestPostgresDatabase() };
}

/**
 * A new empty PostgreSQL database whatever the test store (for tests that need PostgreSQL itself,
 * e.g. a copy from SQLite into it); returns its URL. Drop it with `dropTestDatabase`.
 */
export async function createTestPostgresDatabase(): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${runId()}_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh temp data dir and a fresh database, as environment, for a test that builds its own config
 * (several cores on one store, a restart). Clean up with `removeTestData(config)`.
 */
export async function freshTestDataEnv(prefix = 'atelier-test-'): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  return { ATELIER_DATA_DIR: dataDir, ...(await testDatabaseEnv()) };
}

/** Drops a database made by `testDatabaseEnv` (after its pools are closed); other URLs are left alone. */
export async function dropTestDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  if (!name) return;
  await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Removes what a test's config pointed at: its data dir, and its PostgreSQL database if it has one. */
export async function removeTestData(config: { dataDir: string; databaseUrl: string }): Promise<void> {
  await dropTestDatabase(config.databaseUrl);
  // A first-time rendition asked for just before the app closed may still be landing its file while
  // the tree is removed (ENOTEMPTY): fs.rm retries those, with a growing pause.
  await rm(config.dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
