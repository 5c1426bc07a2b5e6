#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and web/src/ (the website's pure arithmetic) with node's own
// test runner. TypeScript is loaded by
// Node.js's own type stripping through scripts/typescript-hooks.mjs where the running Node.js has it
// (`module.registerHooks` and `--experimental-transform-types`, checked once per run), else by tsx. The
// tiers are folders: src/**/*.test.ts are unit tests beside their code (no store, no whole core) and
// run once; test/** builds the core on a real store and runs on SQLite, then again on PostgreSQL
// (each test app gets a fresh database on ATELIER_TEST_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test) — except test/defaults/, which checks the embedded
// defaults (`npm start` on SQLite) and runs once. test/browser/ has its own command (test:browser).
// Where PostgreSQL is unreachable its half is skipped with a loud banner, except with CI=true: then
// that is a failure. ATELIER_TEST_STORE=sqlite|postgres runs one half only.
// Files that run the built program (bin/atelier, `npm start`, dist/) get a current build first, made
// once here, so the test processes that start the CLI side by side never find it missing or stale.
// Usage: node scripts/run-tests.mjs [path-filter ...]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureCurrentBuild } from './ensure-build.mjs';

const roots = ['src', 'test', join('web', 'src')];
const filters = process.argv.slice(2);
const postgresUrl = process.env.ATELIER_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const onlyStore = process.env.ATELIER_TEST_STORE;
const inCi = process.env.CI === 'true';
/**
 * Test files run at once (ATELIER_TEST_CONCURRENCY): 3 by default. The files wait mostly on I/O
 * (loopback upstreams, the database, child processes): on a quiet 2-core machine 3 at once kept
 * ~1.5 cores busy and took the two halves from 534 + 678 s (2 at once) to 289 + 363 s.
 */
const concurrency = Number(process.env.ATELIER_TEST_CONCURRENCY) || 3;
/** The tier that runs on both stores: everything under test/ but the embedded defaults' checks. */
const onBothStores = (file) =>
  file.startsWith(`test${sep}`) && !file.startsWith(join('test', 'defaults', ''));
const runsTheBuild = /bin\/atelier|'bin', 'atelier'|\['start'|dist\/src\//;

function collect(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts') && !path.startsWith(join('test', 'browser'))) out.push(path);
  }
  return out;
}

const fileTimesReporter = fileURLToPath(new URL('file-times-reporter.mjs', import.meta.url));
/** How many of the slowest files each half names at its end. */
const slowestShown = 12;
const label = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const typescriptHooks = fileURLToPath(new URL('typescript-hooks.mjs', import.meta.url));
const nativeLoader = [
  '--experimental-transform-types',
  '--disable-warning=ExperimentalWarning',
  '--import',
  typescriptHooks,
];

/**
 * How the test processes load TypeScript: Node.js's own type stripping when this Node.js loads a
 * source of the project with it (a class with parameter properties, imported by its `.js` name),
 * else tsx (older lines of 22).
 */
function typescriptLoader() {
  const probe = spawnSync(
    process.execPath,
    [...nativeLoader, '--input-type=module', '-e', "await import('./src/base/domain/errors.js')"],
    { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return probe.status === 0 ? nativeLoader : ['--import', 'tsx'];
}

/** Runs `files` once with `store`; the spec output goes to the terminal, the counts come from TAP. */
function runSuite(store, files, runId) {
  const tapDir = mkdtempSync(join(tmpdir(), 'atelier-tap-'));
  const tapFile = join(tapDir, 'report.tap');
  const timesFile = join(tapDir, 'file-times.jsonl');
  const started = performance.now();
  console.log(`\n=== ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${files.length} test files ===\n`);
  const result = spawnSync(
    process.execPath,
    [
      ...loader,
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-timeout=120000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      `--test-reporter=${fileTimesReporter}`,
      `--test-reporter-destination=${timesFile}`,
      ...files,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'test', ATELIER_TEST_STORE: store, ATELIER_TEST_RUN_ID: runId },
    },
  );
  const counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  try {
    for (const line of readFileSync(tapFile, 'utf8').split('\n')) {
      const match = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
      if (match) counts[match[1]] = Number(match[2]);
    }
  } catch {
    // No report: the runner itself failed; the exit status says so.
  }
  printSlowest(store, timesFile, performance.now() - started);
  rmSync(tapDir, { recursive: true, force: true });
  return { store, counts, ok: result.status === 0 && counts.fail === 0 && counts.cancelled === 0 };
}

/** The half's wall time and the files it spent longest on (see file-times-reporter.mjs). */
function printSlowest(store, timesFile, wallMs) {
  let times = [];
  try {
    times = readFileSync(timesFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return;
  }
  times.sort((a, b) => b.ms - a.ms);
  const cwd = `${process.cwd()}${sep}`;
  const rows = times
    .slice(0, slowestShown)
    .map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(cwd, '')}`);
  console.log(
    `\n${label[store]}: ${(wallMs / 1000).toFixed(0)} s for ${times.length} files; the slowest:\n${rows.join('\n')}`,
  );
}

async function withClient(run) {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function postgresReachable() {
  try {
    await withClient((client) => client.query('select 1'));
    return true;
  } catch (error) {
    return error instanceof Error ? error.message || String(error) : String(error);
  }
}

/** Drops what this run's tests left behind (a test that crashed before closing its app), and only that. */
async function dropLeftovers(runId) {
  await withClient(async (client) => {
    const { rows } = await client.query('select datname from pg_database where datname like $1', [
      `atelier\\_t\\_${runId}\\_%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }).catch((error) => console.error(`could not drop leftover test databases: ${error.message}`));
}

function banner(lines) {
  const bar = '#'.repeat(78);
  console.error(`\n${bar}\n${lines.map((l) => `##  ${l}`).join('\n')}\n${bar}\n`);
}

let files = roots.flatMap((root) => collect(root, [])).sort();
if (filters.length > 0) files = files.filter((f) => filters.some((flt) => f.includes(flt)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
if (onlyStore !== undefined && onlyStore !== 'sqlite' && onlyStore !== 'postgres') {
  console.error(`ATELIER_TEST_STORE must be sqlite or postgres, not ${JSON.stringify(onlyStore)}`);
  process.exit(1);
}
const storeFiles = files.filter(onBothStores);
if (files.some((f) => runsTheBuild.test(readFileSync(f, 'utf8'))))
  ensureCurrentBuild(fileURLToPath(new URL('..', import.meta.url)));
const runId = randomBytes(4).toString('hex');
const loader = typescriptLoader();
const runs = [];
let postgresProblem;

if (onlyStore !== 'postgres') runs.push(runSuite('sqlite', files, runId));
if (onlyStore !== 'sqlite' && storeFiles.length > 0) {
  const reachable = await postgresReachable();
  if (reachable === true) {
    runs.push(runSuite('postgres', storeFiles, runId));
    await dropLeftovers(runId);
  } else {
    postgresProblem = `${postgresUrl}: ${reachable}`;
    banner([
      inCi
        ? 'PostgreSQL NOT REACHABLE — CI=true, so this run FAILS'
        : 'PostgreSQL NOT REACHABLE — the PostgreSQL half of the suite was SKIPPED',
      postgresProblem,
      `${storeFiles.length} test files did not run on PostgreSQL. Start the server, or point`,
      'ATELIER_TEST_POSTGRES_URL at one (trust auth, allowed to CREATE DATABASE).',
    ]);
  }
}

const parts = runs.map(
  ({ store, counts, ok }) =>
    `${label[store]} ${counts.pass}/${counts.tests} passed, ${counts.fail} failed` +
    `${counts.cancelled ? `, ${counts.cancelled} cancelled` : ''}${counts.skipped ? `, ${counts.skipped} skipped` : ''}` +
    `${ok ? '' : ' (FAILED)'}`,
);
if (postgresProblem) parts.push(`PostgreSQL ${inCi ? 'UNREACHABLE (FAILED)' : 'SKIPPED (unreachable)'}`);
const failed = runs.some((r) => !r.ok) || (postgresProblem !== undefined && inCi);
console.log(`\nsummary: ${parts.join(' · ')} → ${failed ? 'FAIL' : 'OK'}`);
process.exit(failed ? 1 : 0);
