// The build, and its freshness checked and restored. `npm run build` is `node scripts/ensure-build.mjs
// build`: tsc, vite, the MCP gallery page (scripts/build-mcp-app.mjs), then dist/.build-stamp dated
// from the moment the build started (a source saved during a build is newer than the stamp, so the
// next check rebuilds). bin/atelier and the test
// runner call ensureCurrentBuild: nothing happens when the build is current (a start costs a stat walk of
// src/ and web/, a few milliseconds); otherwise one process builds while every other one waits on the
// lock file dist/.build-lock and then finds the build current — so concurrent CLI runs (tests start
// several) never write the same dist/ at once.
// Inputs: src/, web/ (but web/dist), package.json, package-lock.json and the tsconfig files.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INPUTS = ['src', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIP = new Set(['node_modules', 'dist']);
/** A build takes 5–30 s; one that holds the lock for this long is stuck, not slow. */
const LOCK_WAIT_MS = 10 * 60_000;

function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (!SKIP.has(name)) newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** True when dist/ and web/dist/ were built after the last change to any input. */
export function isBuildCurrent(root) {
  // An install without sources (the Docker image) runs what it shipped: there is nothing to rebuild from.
  if (!existsSync(join(root, 'src'))) return existsSync(join(root, 'dist', 'src', 'server.js'));
  const stamp = newestMtime(join(root, 'dist', '.build-stamp'));
  if (stamp === 0 || newestMtime(join(root, 'web', 'dist', 'index.html')) === 0) return false;
  if (newestMtime(join(root, 'dist', 'mcp-app', 'gallery.html')) === 0) return false;
  return INPUTS.every((input) => newestMtime(join(root, input)) < stamp);
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Takes dist/.build-lock (exclusive create); waits while a live process holds it, clears a dead one's. */
function acquireLock(lockPath) {
  const until = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readFileSync(lockPath, { encoding: 'utf8', flag: 'a+' }), 10);
    // An empty lock is one being written this instant; only a named holder that is gone is stale.
    if (Number.isInteger(holder) && !alive(holder)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() > until)
      throw new Error(`${lockPath} is still held by process ${holder} after 10 minutes`);
    if (!told)
      process.stderr.write(`atelier: waiting for the build another process is running (${lockPath})\n`);
    told = true;
    sleep(200);
  }
}

function fail(message) {
  process.stderr.write(`atelier: ${message}\n`);
  process.exit(1);
}

/** Runs one build step with node_modules/.bin first on PATH (as npm does, so its tools run on the pinned Node.js). */
function step(root, command, args) {
  const path = `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`;
  // Output to stderr: a CLI command that builds first (`accounts list --json`) keeps a clean stdout.
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: ['ignore', 2, 2],
    env: { ...process.env, PATH: path },
  });
  return result.status === 0;
}

/**
 * The build: the server (tsc), the website (vite) and the MCP gallery page, then the stamp, dated
 * from the moment the build started so that a source saved during the build still counts as newer than it. False when a step fails.
 */
export function build(root) {
  // Made before the clock starts: creating web/dist would date the input web/ after the stamp.
  mkdirSync(join(root, 'web', 'dist'), { recursive: true });
  const startedAt = new Date();
  const built =
    step(root, 'tsc', ['-p', 'tsconfig.build.json']) &&
    step(root, 'vite', ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']) &&
    step(root, 'node', ['scripts/build-mcp-app.mjs']);
  if (!built) return false;
  const stamp = join(root, 'dist', '.build-stamp');
  writeFileSync(stamp, `${startedAt.toISOString()}\n`);
  utimesSync(stamp, startedAt, startedAt);
  return true;
}

/**
 * Builds the server and the website when the build is missing or stale, under the build lock; exits
 * the process with a message when it cannot (no dev dependencies to build with, or the build failed).
 */
export function ensureCurrentBuild(root) {
  if (isBuildCurrent(root)) return;
  const problem = withBuildLock(root, () => {
    // Another process may have built while this one waited for the lock.
    if (isBuildCurrent(root)) return undefined;
    if (!existsSync(join(root, 'node_modules', '.bin', 'tsc')))
      return 'the build (dist/) is missing or older than the sources, and the build tools are not installed: run `npm ci`, then `npm run build`';
    process.stderr.write('atelier: building first (the build is missing or older than the sources)\n');
    return build(root) ? undefined : 'the build failed (`npm run build`, output above)';
  });
  if (problem) fail(problem);
}

/** Runs `run` holding dist/.build-lock, so no two builds write dist/ at once. */
function withBuildLock(root, run) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  const lockPath = join(root, 'dist', '.build-lock');
  acquireLock(lockPath);
  try {
    return run();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

// `npm run build`: an unconditional build, under the same lock.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== 'build') fail('usage: node scripts/ensure-build.mjs build');
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!withBuildLock(root, () => build(root))) process.exit(1);
}
