import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './test-server.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb in a temp dir, a free loopback port, trust auth),
 * for tests that stop and restart the database: the machine's shared server must stay up for every
 * other test running at the same time. Built from the machine's PostgreSQL binaries; as root the
 * server runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/atelier` */
  url: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function binDir(): Promise<string | undefined> {
  try {
    const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
    return versions[0] ? `/usr/lib/postgresql/${versions[0]}/bin` : undefined;
  } catch {
    return undefined;
  }
}

/** Why a private server cannot be had here, or undefined when it can. */
export async function privatePostgresUnavailable(): Promise<string | undefined> {
  if (!(await binDir())) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  return undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = await mkdtemp(join(tmpdir(), 'atelier-pg-'));
  const dataDir = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  await pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => pg('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  await start();
  await pg('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', 'atelier']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/atelier`,
    async restart() {
      await pg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      await start();
    },
    async close() {
      await pg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
