// Measures the stdio package as a person installing it meets it: the tarball's size, what
// `npm install <tarball>` puts into an empty folder (bytes on disk, packages), and the cold `npx`
// start (an empty npm cache, so npx fetches and installs everything) up to the first tools/list
// answer, then the start of the installed bin. For scale, the same cold npx running `true` instead of
// the server: npm's own share. Prints one JSON object, with the 1-minute load average before and after.
//
//   node scripts/measure-mcp-package.mjs [--tarball path.tgz] [--runs 3]
//
// Without --tarball it packs packages/mcp (its prepack builds the bundle). The server under test is
// pointed at a loopback port nobody listens on: tools/list asks the API for the configured actions
// and falls back at once when the connection is refused, so the figure is the package's own start.
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: { tarball: { type: 'string' }, runs: { type: 'string', default: '3' } },
});
const runs = Number(values.runs);
const work = mkdtempSync(join(tmpdir(), 'atelier-mcp-measure-'));
const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

function pack() {
  if (values.tarball) return values.tarball;
  const out = join(work, 'tarball');
  mkdirSync(out);
  execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
    cwd: join(root, 'packages', 'mcp'),
    env: npmEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return join(out, readdirSync(out)[0]);
}

/** Bytes of the files under dir (their apparent size, as `du -sb` counts them) and the file count. */
function diskUsage(dir) {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
    files += 1;
  }
  return { bytes, files };
}

// With GNU time, each process's CPU seconds (user + system, its waited-for children included) too:
// a figure that, unlike the wall time, hardly moves with the machine's load.
const gnuTime = existsSync('/usr/bin/time');

/** Spawns the command (under GNU time where there is one); `cpu` reads the CPU seconds from its stderr. */
function spawnTimed(command, args, options) {
  const child = gnuTime
    ? spawn('/usr/bin/time', ['-f', '\nCPU %U %S', command, ...args], options)
    : spawn(command, args, options);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const cpu = () => {
    const match = /\nCPU (\S+) (\S+)\s*$/.exec(stderr);
    return match ? Math.round((Number(match[1]) + Number(match[2])) * 100) / 100 : undefined;
  };
  return { child, cpu, stderr: () => stderr };
}

const elapsedMs = (started) => Math.round(Number(process.hrtime.bigint() - started) / 1e6);

/**
 * Spawns the command, sends initialize and tools/list, and resolves with the ms until tools/list's
 * answer; then ends stdin (the server's signal to exit) and adds the CPU seconds once it has exited.
 */
function timeToToolsList(command, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const { child, cpu, stderr } = spawnTimed(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    let answer;
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    child.on('close', (code) => {
      if (answer) resolve({ ...answer, cpu: cpu() });
      else reject(new Error(`exited with ${code} before answering tools/list\n${stderr()}`));
    });
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          answer = { ms: elapsedMs(started), tools: message.result.tools.length };
          child.stdin.end();
          setTimeout(() => child.kill(), 30_000).unref();
        }
      }
    });
    const clientInfo = { name: 'measure', version: '1' };
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
    });
  });
}

/** Resolves with the ms a command takes to exit, and its CPU seconds (it must exit 0). */
function timeToExit(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const { child, cpu, stderr } = spawnTimed(command, args, {
      cwd,
      env: npmEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.on('close', (code) => {
      if (code === 0) resolve({ ms: elapsedMs(started), cpu: cpu() });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${stderr()}`));
    });
  });
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const serverEnv = { ...npmEnv, ATELIER_API_KEY: 'measure', ATELIER_BASE_URL: 'http://127.0.0.1:9' };

const loadBefore = loadavg()[0];
try {
  const tarball = pack();
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'empty', private: true }));
  const cache = join(work, 'install-cache');
  const installStarted = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--cache', cache, tarball], {
    cwd: app,
    env: npmEnv,
    stdio: 'ignore',
  });
  const installMs = Date.now() - installStarted;
  const lock = JSON.parse(readFileSync(join(app, 'node_modules', '.package-lock.json'), 'utf8'));
  const packages = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/'));
  const installed = diskUsage(join(app, 'node_modules'));

  const repeat = async (measure) => {
    const results = [];
    for (let run = 0; run < runs; run++) results.push(await measure(run));
    return results;
  };
  const npx = (run, name, ...command) => {
    const folder = join(work, `npx-${name}-${run}`);
    mkdirSync(folder);
    return { folder, args: ['--yes', '--cache', join(folder, 'cache'), '--package', tarball, ...command] };
  };
  const cold = await repeat((run) => {
    const { folder, args } = npx(run, 'server', 'atelier-mcp');
    return timeToToolsList('npx', args, folder, serverEnv);
  });
  const npmOnly = await repeat((run) => {
    const { folder, args } = npx(run, 'true', '--call', 'true');
    return timeToExit('npx', args, folder);
  });
  const bin = join(app, 'node_modules', '.bin', 'atelier-mcp');
  const warm = await repeat(() => timeToToolsList(process.execPath, [bin], app, serverEnv));
  const figures = (results) => ({
    median: median(results.map((r) => r.ms)),
    runs: results.map((r) => r.ms),
    ...(gnuTime ? { cpuSeconds: results.map((r) => r.cpu) } : {}),
  });
  const report = {
    node: process.version,
    tarballBytes: statSync(tarball).size,
    installedBytes: installed.bytes,
    installedDiskKiB: Number(
      execFileSync('du', ['-sk', join(app, 'node_modules')], { encoding: 'utf8' }).split('\t')[0],
    ),
    installedFiles: installed.files,
    packagesInstalled: packages.length,
    dependencies: packages.filter((path) => path !== 'node_modules/@atelier/mcp').length,
    installMs,
    coldNpxToToolsListMs: figures(cold),
    coldNpxRunningTrueMs: figures(npmOnly),
    installedToToolsListMs: figures(warm),
    tools: warm[0]?.tools,
    loadAverage1m: { before: loadBefore, after: loadavg()[0] },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
