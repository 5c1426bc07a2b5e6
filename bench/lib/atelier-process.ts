/**
 * The Atelier server under test, as its own process: the built server (dist/src/server.js) when
 * the build is current (or can be made current with `npm run build`), else the sources through tsx.
 * Accounts come from the real CLI (`accounts create --json`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// @ts-expect-error: a plain ESM script without types (two functions, documented there).
import { isBuildCurrent } from '../../scripts/ensure-build.mjs';

export const ROOT = resolve(import.meta.dirname, '../..');
const SERVER_BUILT = join(ROOT, 'dist/src/server.js');

export type ServerEntry = { kind: 'built' } | { kind: 'sources'; reason: string };

/** Makes the build current (as `npm start` does); falls back to the sources when the build fails. */
export function prepareServerEntry(): ServerEntry {
  if ((isBuildCurrent as (root: string) => boolean)(ROOT)) return { kind: 'built' };
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) {
    return {
      kind: 'sources',
      reason: `npm run build failed: ${(built.stderr || built.stdout).slice(0, 300)}`,
    };
  }
  writeFileSync(join(ROOT, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
  return { kind: 'built' };
}

/** The node arguments that start the server from `entry`. */
export function serverArgs(entry: ServerEntry): string[] {
  return entry.kind === 'built' ? [SERVER_BUILT] : ['--import', 'tsx', join(ROOT, 'src/server.ts')];
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer().once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

export interface AtelierEnv {
  dataDir: string;
  env: Record<string, string>;
  baseUrl: string;
}

/** A fresh temp data dir and the environment of a server on a free port (SQLite unless `databaseUrl`). */
export async function atelierEnv(extra: Record<string, string> = {}): Promise<AtelierEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'atelier-bench-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    ATELIER_DATA_DIR: dataDir,
    ATELIER_PUBLIC_BASE_URL: baseUrl,
    ATELIER_DEMO_ACCOUNT: 'false',
    // One access-log line per request is part of what P1 measures: info level, written to a file.
    // BENCH_LOG_LEVEL changes it for a diagnosis (what the logging costs); the table is taken at info.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    ...extra,
  };
  return { dataDir, env, baseUrl };
}

/**
 * Runs one CLI command with the target's environment and returns its standard output. With a current
 * build it is the built CLI, the same code as the server under test; else `bin/atelier`.
 */
export function runCli(target: AtelierEnv, command: string[], entry: ServerEntry): string {
  const args =
    entry.kind === 'built'
      ? [
          '--input-type=module',
          '-e',
          `const { runCli } = await import(${JSON.stringify(join(ROOT, 'dist/src/edges/cli/main.js'))});` +
            `process.exitCode = await runCli(${JSON.stringify(command)});`,
        ]
      : [join(ROOT, 'bin/atelier.mjs'), ...command];
  const cli = spawnSync(process.execPath, args, { env: target.env, encoding: 'utf8' });
  if (cli.status !== 0) throw new Error(`atelier ${command.join(' ')} failed (${cli.status}): ${cli.stderr}`);
  return cli.stdout;
}

/** Creates an account with the CLI (`accounts create --json`); returns its API key. */
export function createAccount(target: AtelierEnv, email: string, entry: ServerEntry): string {
  const out = runCli(target, ['accounts', 'create', '--email', email, '--json'], entry);
  return String(JSON.parse(out).api_key);
}

export interface AtelierProcess {
  pid: number;
  baseUrl: string;
  /** Milliseconds from spawn to the first 200 on /healthz. */
  startMs: number;
  stop(): Promise<void>;
}

/** Polls /healthz every 5 ms until it answers 200 (or the process exits). */
async function waitHealthy(child: ChildProcess, baseUrl: string, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited while starting`);
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${what} did not answer /healthz within 120 s`);
}

/** Starts `node <args>` (or `command`) with the target's environment; resolves once /healthz answers 200. */
export async function startAtelier(
  target: AtelierEnv,
  args: string[],
  command: string = process.execPath,
): Promise<AtelierProcess> {
  const logFd = openSync(join(target.dataDir, 'server.log'), 'a');
  const started = performance.now();
  // Its own process group, so that `npm start` and the server under it stop together.
  const child = spawn(command, args, {
    cwd: ROOT,
    env: target.env,
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid ?? 0), name);
    } catch {
      // already gone
    }
  };
  closeSync(logFd);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await waitHealthy(child, target.baseUrl, `${command} ${args.join(' ')}`);
  } catch (error) {
    signal('SIGKILL');
    throw error;
  }
  const startMs = performance.now() - started;
  return {
    pid: child.pid ?? 0,
    baseUrl: target.baseUrl,
    startMs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Removes a target's data dir. */
export function removeTarget(target: AtelierEnv): void {
  rmSync(target.dataDir, { recursive: true, force: true });
}
