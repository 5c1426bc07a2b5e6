import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../support/test-server.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/**
 * Black box: the real process started the way an operator starts it (`npm start`), driven over
 * HTTP, with accounts made by the real CLI on the same data dir while the server runs.
 */
describe('black box: npm start + bin/atelier', () => {
  let dataDir: string;
  let port: number;
  let server: ChildProcess;
  let stdout = '';
  let env: NodeJS.ProcessEnv;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'atelier-blackbox-'));
    port = await freePort();
    env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ATELIER_DATA_DIR: dataDir,
      ATELIER_LOCAL_LATENCY_MS: '600',
      LOG_LEVEL: 'warn',
    };
    // Its own process group, so the test can send SIGINT like Ctrl-C in a terminal.
    server = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (chunk) => {
      stdout += chunk.toString();
    });
    server.stderr?.on('data', (chunk) => {
      stdout += chunk.toString();
    });
    const until = Date.now() + 180_000;
    while (Date.now() < until) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      if (server.exitCode !== null) throw new Error(`server exited early:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`server did not become healthy:\n${stdout}`);
  });

  after(async () => {
    if (server.exitCode === null && server.pid) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  async function waitUntilDown(base: string) {
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      const up = await fetch(`${base}/healthz`).then(
        () => true,
        () => false,
      );
      if (!up) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server still answering after SIGINT');
  }

  const cli = (...args: string[]) => run(join(root, 'bin/atelier'), args, { cwd: root, env });

  test('first start writes the demo account to a 0600 file in the data dir and prints only its path', async () => {
    const path = join(dataDir, 'demo-credentials.txt');
    assert.match(stdout, /demo@localhost/);
    assert.ok(stdout.includes(path), stdout);
    // Log shippers keep stdout: no key, no password there.
    assert.doesNotMatch(stdout, /atl_|password:/);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const text = await readFile(path, 'utf8');
    assert.match(text, /password: \S{12,}/);
    assert.match(text, /curl -s http:\/\/localhost:\d+\/api\/v1\/generate/);
    const apiKey = /API key: {2}(atl_[A-Za-z0-9_-]{43})/.exec(text)?.[1];
    assert.ok(apiKey, text);
    const status = await fetch(`http://127.0.0.1:${port}/api/v1/user/status`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(((await status.json()) as { email: string }).email, 'demo@localhost');
  });

  test('CLI account → generate → poll to completed → fetch the image → rotate key → graceful stop', async () => {
    const created = await cli(
      'accounts',
      'create',
      '--email',
      'blackbox@example.test',
      '--tier',
      'pro',
      '--json',
    );
    const lines = created.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'exactly one JSON object on stdout');
    const account = JSON.parse(lines[0] ?? '');
    assert.deepEqual(Object.keys(account).sort(), ['api_key', 'email', 'tier']);
    assert.equal(account.tier, 'pro');
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${account.api_key}` };

    const generated = await fetch(`${base}/api/v1/generate`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'black box harbour', imageSize: '1K', aspect: '4:3' }),
    });
    assert.equal(generated.status, 200);
    const { task_ids } = (await generated.json()) as { task_ids: string[] };
    let record: { status: string; imageUrl?: string } = { status: 'queued' };
    const until = Date.now() + 30_000;
    while (record.status !== 'completed' && record.status !== 'failed' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      record = (await (
        await fetch(`${base}/api/v1/tasks/${task_ids[0]}`, { headers: auth })
      ).json()) as typeof record;
    }
    assert.equal(record.status, 'completed');
    const image = await fetch(record.imageUrl ?? '');
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    const bytes = Buffer.from(await image.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

    const listed = await cli('accounts', 'list', '--json');
    const emails = (JSON.parse(listed.stdout) as Array<{ email: string }>).map((a) => a.email);
    assert.deepEqual(emails.sort(), ['blackbox@example.test', 'demo@localhost']);

    const rotated = JSON.parse(
      (await cli('accounts', 'rotate-key', '--email', 'blackbox@example.test', '--json')).stdout,
    );
    const old = await fetch(`${base}/api/v1/user/status`, { headers: auth });
    assert.equal(old.status, 401);
    const fresh = await fetch(`${base}/api/v1/user/status`, {
      headers: { authorization: `Bearer ${rotated.api_key}` },
    });
    assert.deepEqual(await fresh.json(), {
      email: 'blackbox@example.test',
      tier: 'pro',
      has_key: true,
      spend_confirmation: { above_micros: 500_000, api_keys: false, sign_in: true },
    });

    // Ctrl-C: npm itself dies of the signal; the server below it must stop gracefully too.
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    process.kill(-(server.pid ?? 0), 'SIGINT');
    await exited;
    await waitUntilDown(base);
  });

  test('a second start on the same data dir keeps the data, prints no new demo account, and exits 0 on SIGINT', async () => {
    let output = '';
    const again = spawn(process.execPath, ['dist/src/server.js'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    again.stdout?.on('data', (chunk) => {
      output += chunk.toString();
    });
    const base = `http://127.0.0.1:${port}`;
    const until = Date.now() + 30_000;
    let healthy = false;
    while (!healthy && Date.now() < until) {
      healthy = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(healthy, 'restarted server is healthy');
    assert.doesNotMatch(output, /demo account/);
    const listed = JSON.parse((await cli('accounts', 'list', '--json')).stdout) as unknown[];
    assert.equal(listed.length, 2);
    const code = new Promise<number | null>((resolve) => again.once('exit', (c) => resolve(c)));
    again.kill('SIGINT');
    assert.equal(await code, 0);
  });

  test('CLI errors are clear and non-zero', async () => {
    await assert.rejects(cli('accounts', 'create', '--json'), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /--email is required/);
      return true;
    });
    await assert.rejects(
      cli('accounts', 'set-tier', '--email', 'nobody@example.test', '--tier', 'pro'),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /no account/);
        return true;
      },
    );
    const usage = (message: RegExp) => (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2, error.stderr);
      assert.match(error.stderr, message);
      assert.match(error.stderr, /Usage: atelier <command>/);
      return true;
    };
    await assert.rejects(
      cli('accounts', 'create', '--email', 'x@example.test', '--tier', 'gold'),
      usage(/unknown tier "gold" \(tiers: trial, starter, standard, pro\)/),
    );
    await assert.rejects(cli(), usage(/no command given/));
  });

  test('a command that reads refuses a mistyped data dir (exit 1, the path named) and creates nothing', async () => {
    const typo = join(dataDir, 'typo');
    await assert.rejects(
      run(join(root, 'bin/atelier'), ['accounts', 'list'], {
        cwd: root,
        env: { ...env, ATELIER_DATA_DIR: typo },
      }),
      (error: { code: number; stdout: string; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.equal(error.stdout, '');
        assert.match(
          error.stderr,
          new RegExp(`no database at ${join(typo, 'atelier.db')} \\(from ATELIER_DATA_DIR=`),
        );
        return true;
      },
    );
    assert.equal(existsSync(typo), false);
  });
});
