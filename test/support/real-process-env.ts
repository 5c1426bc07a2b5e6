import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseEnv } from './test-database.js';
import { freePort } from './test-server.js';

/**
 * The environment of a real Atelier process for a black-box test: a fresh data dir and database
 * (the store ATELIER_TEST_STORE names), a free loopback port, no demo account, plus `extra`.
 */
export async function realProcessEnv(
  prefix: string,
  extra: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; base: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ATELIER_DATA_DIR: dataDir,
    ATELIER_DATABASE_URL: join(dataDir, 'atelier.db'),
    ...(await testDatabaseEnv()),
    ATELIER_PUBLIC_BASE_URL: base,
    ATELIER_DEMO_ACCOUNT: 'false',
    ...extra,
  };
  return { env, base };
}
