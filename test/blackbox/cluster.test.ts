import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  type PrivatePostgres,
  privatePostgresUnavailable,
  startPrivatePostgres,
} from '../support/private-postgres.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { testStore } from '../support/test-database.js';
import { freePort } from '../support/test-server.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const onPostgres = testStore() === 'postgres';
const unavailable = onPostgres
  ? await privatePostgresUnavailable()
  : 'runs in the PostgreSQL half of npm test';

interface Node {
  name: string;
  roles: string;
  url: string;
  dataDir: string;
  process: ChildProcess;
  output: string;
  exit: Promise<{ code: number | null; signal: string | null }>;
}

/** The node's lease owner id, from its "atelier is ready" log line. */
function leaseOwnerOf(entry: Node): string {
  for (const line of entry.output.split('\n')) {
    if (line.includes('atelier is ready')) return (JSON.parse(line) as { leaseOwner: string }).leaseOwner;
  }
  throw new Error(`${entry.name} logged no ready line:\n${entry.output}`);
}

interface Task {
  task_id: string;
  status: string;
  progress: number;
  imageUrl?: string;
  error?: string;
}

/**
 * Black box: four real processes — two `api` and two `worker` nodes — on one PostgreSQL database (a
 * server of the test's own, so it can be restarted) and one S3 bucket, as behind a load balancer.
 */
describe('cluster: two api and two worker nodes on one PostgreSQL database and one bucket', {
  skip: unavailable ?? false,
}, () => {
  let postgres: PrivatePostgres;
  let s3: TestS3;
  let env: NodeJS.ProcessEnv;
  const nodes = new Map<string, Node>();
  let headers: Record<string, string>;
  const password = 'cluster password';

  const node = (name: string) => nodes.get(name) as Node;
  async function call(name: string, path: string, init: RequestInit = {}) {
    const response = await fetch(`${node(name).url}${path}`, {
      ...init,
      headers: { ...headers, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  async function generate(name: string, count: number, extra: Record<string, string> = {}) {
    const { status, body } = await call(name, '/api/v1/generate', {
      method: 'POST',
      headers: extra,
      body: JSON.stringify({ prompt: `cluster ${randomBytes(4).toString('hex')}`, count, imageSize: '1K' }),
    });
    assert.equal(status, 200, JSON.stringify(body));
    return body.task_ids as string[];
  }
  async function tasks(name: string, ids: string[]): Promise<Task[]> {
    const all: Task[] = [];
    for (let i = 0; i < ids.length; i += 20) {
      const { body } = await call(name, `/api/v1/tasks?ids=${ids.slice(i, i + 20).join(',')}`);
      all.push(...(body.tasks as Task[]));
    }
    return all;
  }
  /** Waits until every task is final (bounded: leases of a killed worker expire after 30 s). */
  async function allFinal(name: string, ids: string[], timeoutMs = 120_000): Promise<Task[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const records = await tasks(name, ids).catch(() => []);
      if (records.length === ids.length && records.every((t) => ['completed', 'failed'].includes(t.status)))
        return records;
      if (Date.now() > until) throw new Error(`tasks not final: ${JSON.stringify(records)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  async function healthy(name: string, timeoutMs = 60_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const status = await fetch(`${node(name).url}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return;
      const { process: child, output } = node(name);
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited:\n${output}`);
      if (Date.now() > until) throw new Error(`${name} is not healthy (${status}):\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * The dead `owner`'s leases on `ids` run out: each must end within a lease (30 s, LEASE_MS in
   * src/core.ts) of now, as a renewed lease does; then its end is moved to now, what waiting for it in
   * real time would reach (a lease that never ended, or ended later, fails here as it would there).
   */
  async function expireLeasesOf(owner: Node, ids: string[]) {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const now = Date.now();
      const held = `id = any($1) and lease_owner = $2 and status not in ('completed', 'failed')`;
      const { rows } = await client.query(`select id, lease_expires_at from tasks where ${held}`, [
        ids,
        leaseOwnerOf(owner),
      ]);
      for (const row of rows)
        assert.ok(
          Number(row.lease_expires_at) <= now + 30_000,
          `${row.id}: lease ends at ${row.lease_expires_at}`,
        );
      await client.query(`update tasks set lease_expires_at = $3 where ${held}`, [
        ids,
        leaseOwnerOf(owner),
        now,
      ]);
    } finally {
      await client.end();
    }
  }

  async function startNode(name: string, roles: string, port: number, publicBaseUrl: string) {
    const dataDir = await mkdtemp(join(tmpdir(), `atelier-${name}-`));
    // The built server, as deployed and as the CLI below runs (npm test builds it first for a file
    // that names bin/atelier or dist/src/): four processes transpiling the sources through tsx at
    // once took twice as long to start (11 s against 5 s on a loaded 2-core machine).
    const child = spawn(process.execPath, ['dist/src/server.js'], {
      cwd: root,
      env: {
        ...env,
        ATELIER_ROLES: roles,
        PORT: String(port),
        ATELIER_DATA_DIR: dataDir,
        ATELIER_PUBLIC_BASE_URL: publicBaseUrl,
        // info for the ready line, which names the node's lease owner
        LOG_LEVEL: roles === 'worker' ? 'info' : 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const entry: Node = {
      name,
      roles,
      url: `http://127.0.0.1:${port}`,
      dataDir,
      process: child,
      output: '',
      exit: new Promise((done) => child.once('exit', (code, signal) => done({ code, signal }))),
    };
    const append = (chunk: Buffer) => {
      entry.output += chunk.toString();
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    nodes.set(name, entry);
  }

  before(async () => {
    [postgres, s3] = await Promise.all([startPrivatePostgres(), startTestS3()]);
    env = {
      ...process.env,
      ...s3.env(),
      HOST: '127.0.0.1',
      ATELIER_DATABASE_URL: postgres.url,
      ATELIER_MASTER_KEY: randomBytes(32).toString('hex'),
      ATELIER_LOCAL_LATENCY_MS: '1500',
      ATELIER_DEMO_ACCOUNT: 'false',
      ATELIER_WORKER_CONCURRENCY: '4',
      LOG_LEVEL: 'warn',
    };
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const publicBaseUrl = `http://127.0.0.1:${ports[0]}`; // what a load balancer in front would be
    // Started together: the migrations run once, under the advisory lock.
    await Promise.all([
      startNode('api1', 'api', ports[0] as number, publicBaseUrl),
      startNode('api2', 'api', ports[1] as number, publicBaseUrl),
      startNode('worker1', 'worker', ports[2] as number, publicBaseUrl),
      startNode('worker2', 'worker', ports[3] as number, publicBaseUrl),
    ]);
    await Promise.all([...nodes.keys()].map((name) => healthy(name, 120_000)));
    const { stdout } = await run(
      process.execPath,
      [
        'bin/atelier.mjs',
        'accounts',
        'create',
        '--email',
        'team@example.test',
        '--password',
        password,
        '--json',
      ],
      { cwd: root, env: { ...env, ATELIER_DATA_DIR: node('api1').dataDir } },
    );
    headers = { authorization: `Bearer ${JSON.parse(stdout).api_key}` };
  });

  after(async () => {
    for (const entry of nodes.values()) entry.process.kill('SIGKILL');
    await Promise.all([...nodes.values()].map((entry) => entry.exit));
    await Promise.all(
      [...nodes.values()].map((entry) => rm(entry.dataDir, { recursive: true, force: true })),
    );
    await s3?.close();
    await postgres?.close();
  });

  test('every node answers /healthz with its roles', async () => {
    for (const [name, roles] of [
      ['api1', 'api'],
      ['worker2', 'worker'],
    ]) {
      const response = await fetch(`${node(name as string).url}/healthz`);
      assert.deepEqual(await response.json(), { ok: true, roles: [roles] });
    }
  });

  test('the v1 API from either api node; an Idempotency-Key replays on the other node', async () => {
    const key = { 'idempotency-key': `k-${randomBytes(6).toString('hex')}` };
    const body = JSON.stringify({ prompt: 'a harbour at dusk', count: 2, imageSize: '1K' });
    const first = await call('api1', '/api/v1/generate', { method: 'POST', headers: key, body });
    const replay = await call('api2', '/api/v1/generate', { method: 'POST', headers: key, body });
    assert.equal(first.status, 200);
    assert.deepEqual(replay.body, first.body);
    const ids = first.body.task_ids as string[];
    const done = await allFinal('api2', ids);
    assert.ok(done.every((t) => t.status === 'completed'));
    const history = await call('api2', '/api/v1/history');
    assert.ok((history.body.total as number) >= 1);
    // Results are in the bucket and served by either api node; no node writes blobs to its disk.
    for (const name of ['api1', 'api2']) {
      const file = await fetch(`${node(name).url}${new URL(done[0]?.imageUrl as string).pathname}`);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'image/png');
    }
    for (const entry of nodes.values()) assert.ok(!existsSync(join(entry.dataDir, 'blobs')), entry.name);
  });

  test("a long-poll on one api node wakes on a worker's change", async () => {
    const [id] = await generate('api1', 1);
    const initial = (await call('api2', `/api/v1/tasks/${id}`)).body;
    const { body } = await call('api2', `/api/v1/tasks/${id}?wait=30`);
    assert.notDeepEqual(body, initial, 'answered with a changed record, not at the timeout');
  });

  test('a website session made on one api node works on the other', async () => {
    const signIn = await fetch(`${node('api1').url}/web/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: node('api1').url },
      body: JSON.stringify({ email: 'team@example.test', password }),
    });
    assert.equal(signIn.status, 200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const status = await fetch(`${node('api2').url}/api/v1/user/status`, { headers: { cookie } });
    assert.equal(status.status, 200);
    assert.equal(((await status.json()) as { email: string }).email, 'team@example.test');
  });

  test('SIGKILL a worker holding leases: the other takes its tasks over when the leases expire', async () => {
    // worker2 is paused while worker1 takes leases; worker1 is killed holding some, then worker2
    // resumes and must wait for those leases to expire before it finishes their tasks.
    node('worker2').process.kill('SIGSTOP');
    const ids = (await Promise.all(Array.from({ length: 3 }, () => generate('api1', 4)))).flat();
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      for (;;) {
        const { rows } = await client.query(
          `select count(*)::int as n from tasks
            where id = any($1) and lease_owner = $2 and status not in ('completed', 'failed')`,
          [ids, leaseOwnerOf(node('worker1'))],
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await client.end();
    }
    node('worker1').process.kill('SIGKILL');
    assert.equal((await node('worker1').exit).signal, 'SIGKILL');
    await expireLeasesOf(node('worker1'), ids);
    node('worker2').process.kill('SIGCONT');
    const done = await allFinal('api2', ids);
    assert.deepEqual(
      done.filter((t) => t.status !== 'completed'),
      [],
    );
  });

  test('PostgreSQL restarts during a run: the nodes recover without a restart, nothing is lost', async () => {
    const ids = await generate('api1', 4);
    await postgres.restart();
    for (const name of ['api1', 'api2', 'worker2']) await healthy(name);
    ids.push(...(await generate('api2', 2)));
    const done = await allFinal('api1', ids);
    assert.deepEqual(
      done.filter((t) => t.status !== 'completed'),
      [],
    );
    for (const name of ['api1', 'api2', 'worker2'])
      assert.equal(node(name).process.exitCode, null, node(name).output);
  });

  test('SIGTERM: every remaining node exits 0', async () => {
    for (const name of ['api1', 'api2', 'worker2']) node(name).process.kill('SIGTERM');
    for (const name of ['api1', 'api2', 'worker2']) {
      const { code } = await node(name).exit;
      assert.equal(code, 0, `${name}:\n${node(name).output}`);
    }
  });
});
