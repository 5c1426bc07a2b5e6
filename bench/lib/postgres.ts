/** A fresh PostgreSQL database per run (P1, P2, P6 on PostgreSQL), dropped afterwards. */
import pg from 'pg';

export const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates `atelier_bench_<time>_<pid>` and returns its URL; undefined when no server is reachable. */
export async function createBenchDatabase(): Promise<{ url: string; name: string } | undefined> {
  const name = `atelier_bench_${Date.now()}_${process.pid}`;
  try {
    await admin((client) => client.query(`CREATE DATABASE ${name}`));
  } catch {
    return undefined;
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

/** Drops a database made by createBenchDatabase (its connections are ended first). */
export async function dropBenchDatabase(name: string): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
