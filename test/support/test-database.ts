import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { isPostgresUrl, openDatabase } from '../../src/infra/store/database.js';

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
const ADHOC_RUN = 'adhoc';

function runId(): string {
  const id = process.env.ATELIER_TEST_RUN_ID ?? ADHOC_RUN;
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
 * default file in the test's data dir), `ATELIER_DATABASE_URL` of a new database on PostgreSQL, whose
 * schema is made when the app opens it, as in production — or was copied already from the run's
 * migrated template (see `createTestPostgresDatabase`). `{ empty: true }` promises an empty database,
 * for a test of the migrations themselves.
 */
export async function testDatabaseEnv(options: { empty?: boolean } = {}): Promise<Record<string, string>> {
  if (testStore() === 'sqlite') return {};
  return { ATELIER_DATABASE_URL: await createTestPostgresDatabase({ migrated: !options.empty }) };
}

/**
 * A new PostgreSQL database whatever the test store (for tests that need PostgreSQL itself, e.g. a
 * copy from SQLite into it); returns its URL. Drop it with `dropTestDatabase`. Empty, unless
 * `migrated` under `npm test` (which sets ATELIER_TEST_RUN_ID and drops the run's databases at its
 * end): then it is `CREATE DATABASE … TEMPLATE` of one database per run migrated once — the schema
 * and rows the migrations make (opening it migrates nothing more), in a tenth of the time.
 */
export async function createTestPostgresDatabase(options: { migrated?: boolean } = {}): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${runId()}_${randomBytes(6).toString('hex')}`;
  const template = options.migrated && runId() !== ADHOC_RUN ? await migratedTemplate() : undefined;
  await withAdminClient((client) =>
    client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`),
  );
  return databaseUrlOf(name);
}

function databaseUrlOf(name: string): string {
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Key of the advisory lock under which one test process of a run builds the run's template. */
const TEMPLATE_LOCK_KEY = 7_413_920_552;
let template: Promise<string> | undefined;

/**
 * The run's migrated template database (built by the first test process that asks, under an advisory
 * lock; the others wait for it). It is built under another name and renamed when complete, so a
 * template that exists is whole; nothing connects to it after, as `CREATE DATABASE … TEMPLATE` needs.
 */
function migratedTemplate(): Promise<string> {
  template ??= buildTemplate().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

async function buildTemplate(): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${runId()}_template`;
  const building = `${name}_building`;
  await withAdminClient(async (client) => {
    await client.query(`select pg_advisory_lock(${TEMPLATE_LOCK_KEY})`);
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (rowCount) return;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      await (await openDatabase(databaseUrlOf(building))).destroy();
      await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } finally {
      await client.query(`select pg_advisory_unlock(${TEMPLATE_LOCK_KEY})`);
    }
  });
  return name;
}

/**
 * A fresh temp data dir and a fresh database, as environment, for a test that builds its own config
 * (several cores on one store, a restart). Clean up with `removeTestData(config)`.
 */
export async function freshTestDataEnv(
  prefix = 'atelier-test-',
  options: { empty?: boolean } = {},
): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  return { ATELIER_DATA_DIR: dataDir, ...(await testDatabaseEnv(options)) };
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
