#!/usr/bin/env node
// Load check (run by .ci/run on each supported Node line): the built server, started on the Node
// that runs this script, takes 64 concurrent pollers for 30 s while renders run. It passes when the
// process stays up, every request answers 200, every task ends completed, and SIGTERM exits 0.
// This is the load that made Node 24 abort with better-sqlite3 12 (SIGABRT after ~2,450 batch polls).
// Usage: node scripts/load-check.mjs [--seconds 30] [--pollers 64]   (needs `npm run build` first)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '30' }, pollers: { type: 'string', default: '64' } },
});
const seconds = Number(values.seconds);
const pollers = Number(values.pollers);
if (!existsSync(join(root, 'dist/src/server.js'))) {
  console.error('load check: dist/src/server.js is missing; run `npm run build` first');
  process.exit(2);
}

const freePort = () =>
  new Promise((done, fail) => {
    const probe = createServer().once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'atelier-load-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  ATELIER_DATA_DIR: dataDir,
  ATELIER_PUBLIC_BASE_URL: base,
  ATELIER_DEMO_ACCOUNT: 'false',
  ATELIER_LOCAL_LATENCY_MS: '1500',
  LOG_LEVEL: 'warn',
};

// The account comes from the real CLI, on the same runtime.
const cli = spawnSync(
  process.execPath,
  [join(root, 'bin/atelier.mjs'), 'accounts', 'create', '--email', 'load@example.test', '--json'],
  { env, encoding: 'utf8' },
);
if (cli.status !== 0) {
  console.error(`load check: the CLI failed (${cli.status}):\n${cli.stderr}`);
  process.exit(1);
}
const { api_key: apiKey } = JSON.parse(cli.stdout);
const headers = { authorization: `Bearer ${apiKey}` };

let output = '';
const server = spawn(process.execPath, [join(root, 'dist/src/server.js')], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
server.stdout.on('data', (chunk) => {
  output += chunk;
});
server.stderr.on('data', (chunk) => {
  output += chunk;
});
const exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
const running = () => server.exitCode === null && server.signalCode === null;

const counts = { single: 0, batch: 0, renders: 0, errors: 0 };
function fail(message) {
  const sofar = `${counts.single} single and ${counts.batch} batch polls, ${counts.renders} renders submitted`;
  console.error(`load check FAILED on node ${process.version}: ${message} (${sofar})`);
  console.error(`--- server output ---\n${output}`);
  server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}

for (let ready = false; !ready; ) {
  if (!running()) fail('the server exited while starting');
  ready = await fetch(`${base}/healthz`).then(
    (r) => r.status === 200,
    () => false,
  );
  if (!ready) await new Promise((r) => setTimeout(r, 100));
}

const firstErrors = [];
const taskIds = [];
const noteError = (what) => {
  counts.errors++;
  if (firstErrors.length < 5) firstErrors.push(what);
};
async function call(path, init) {
  try {
    const response = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...init?.headers } });
    const body = await response.json();
    if (response.status !== 200) noteError(`${path} → ${response.status} ${JSON.stringify(body)}`);
    return body;
  } catch (error) {
    noteError(`${path} → ${error.cause?.code ?? error.message}`);
    return undefined;
  }
}

const stopAt = Date.now() + seconds * 1000;
async function submitRenders() {
  for (let i = 0; Date.now() < stopAt && running(); i++) {
    const body = await call('/api/v1/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `load check ${i}`, count: 4, imageSize: '1K' }),
    });
    if (body?.task_ids) {
      taskIds.push(...body.task_ids);
      counts.renders += body.task_ids.length;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
async function poll(worker) {
  for (let i = worker; Date.now() < stopAt && running(); i++) {
    if (taskIds.length === 0) {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    if (i % 2 === 0) {
      await call(`/api/v1/tasks/${taskIds[i % taskIds.length]}`);
      counts.single++;
    } else {
      const from = i % Math.max(1, taskIds.length - 20);
      await call(`/api/v1/tasks?ids=${taskIds.slice(from, from + 20).join(',')}`);
      counts.batch++;
    }
  }
}
await Promise.all([submitRenders(), ...Array.from({ length: pollers }, (_, w) => poll(w))]);
if (!running()) {
  fail(`the server died under load (exit ${server.exitCode}, signal ${server.signalCode})`);
}

// Every task submitted under load must end completed (the local renderer never fails unprompted).
const finishBy = Date.now() + 120_000;
let pending = taskIds;
while (pending.length > 0 && Date.now() < finishBy) {
  const still = [];
  for (let i = 0; i < pending.length; i += 20) {
    const body = await call(`/api/v1/tasks?ids=${pending.slice(i, i + 20).join(',')}`);
    for (const task of body?.tasks ?? []) {
      if (task.status === 'failed') noteError(`task ${task.task_id} failed: ${task.error}`);
      else if (task.status !== 'completed') still.push(task.task_id);
    }
  }
  pending = still;
  if (pending.length > 0) await new Promise((r) => setTimeout(r, 250));
}
if (pending.length > 0) fail(`${pending.length} tasks did not finish`);

server.kill('SIGTERM');
const { code, signal } = await exited;
rmSync(dataDir, { recursive: true, force: true });
const summary =
  `${counts.single + counts.batch} polls (${counts.single} single, ${counts.batch} batches of up to 20) ` +
  `from ${pollers} pollers in ${seconds} s, ${counts.renders} renders completed, ${counts.errors} errors, ` +
  `SIGTERM exit ${code ?? signal}`;
if (counts.errors > 0 || code !== 0) {
  console.error(`load check FAILED on node ${process.version}: ${summary}\n  ${firstErrors.join('\n  ')}`);
  console.error(`--- server output ---\n${output}`);
  process.exit(1);
}
console.log(`load check passed on node ${process.version}: ${summary}`);
