import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../src/infra/store/database.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import { createTestApp, freePort } from '../support/test-server.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

/** Reads an event stream until `until` matches the text so far; returns the text. */
async function readStream(body: ReadableStream<Uint8Array>, until: RegExp): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    if (until.test(text) || done) {
      reader.releaseLock();
      return text;
    }
  }
}

describe('SSE: Connection: close is honoured', () => {
  test('the socket closes after the end event when the client asked for it', async () => {
    const t = await createTestApp({ listen: true });
    try {
      const { apiKey } = await t.createAccount();
      const port = new URL(t.baseUrl).port;
      const socket = connect(Number(port), '127.0.0.1');
      socket.write(
        `GET /api/v1/tasks/events?ids=tsk_unknown HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nConnection: close\r\n\r\n`,
      );
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      await new Promise((resolve) => socket.once('close', resolve));
      assert.match(text, /event: end/);
      assert.doesNotMatch(text, /connection: keep-alive/i);
    } finally {
      await t.close();
    }
  });
});

describe('closing the app with event streams and long-polls open', () => {
  test('streams get a final shutdown event, long-polls answer at once, close finishes', async () => {
    const t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '600000' } });
    let closed = false;
    try {
      const { apiKey } = await t.createAccount();
      const generated = await fetch(`${t.baseUrl}/api/v1/generate`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'a slow render', count: 1 }),
      });
      const [id] = ((await generated.json()) as { task_ids: string[] }).task_ids;
      const stream = await fetch(`${t.baseUrl}/api/v1/tasks/events?ids=${id}`, { headers: bearer(apiKey) });
      const body = stream.body as ReadableStream<Uint8Array>;
      const first = await readStream(body, /event: task/);
      assert.match(first, /event: task/);
      // Close once the long-poll is in the server's hands (a request not yet received would be
      // refused, which is right, but not what this test is about).
      const received = new Promise((resolve) => t.app.server.once('request', resolve));
      const longPoll = fetch(`${t.baseUrl}/api/v1/tasks/${id}?wait=60`, { headers: bearer(apiKey) });
      await received;
      await t.app.close();
      closed = true;
      const rest = await readStream(body, /event: shutdown/);
      assert.match(rest, /event: shutdown\ndata: \{"reconnect":true\}/);
      const answered = await longPoll;
      assert.equal(answered.status, 200);
      assert.equal(((await answered.json()) as { task_id: string }).task_id, id);
    } finally {
      if (!closed) await t.app.close();
      await t.close();
    }
  });
});

describe('SIGTERM on the real process with streams, long-polls, an upload and a generate in flight', () => {
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess;
  let output = '';
  let base: string;
  let apiKey: string;
  let config: { dataDir: string; databaseUrl: string };

  before(async () => {
    const fresh = await freshTestDataEnv('atelier-shutdown-');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      ...process.env,
      ...fresh,
      PORT: String(port),
      HOST: '127.0.0.1',
      ATELIER_PUBLIC_BASE_URL: base,
      ATELIER_DEMO_ACCOUNT: 'false',
      ATELIER_LOCAL_LATENCY_MS: '600000',
      LOG_LEVEL: 'warn',
    };
    config = {
      dataDir: fresh.ATELIER_DATA_DIR as string,
      databaseUrl: fresh.ATELIER_DATABASE_URL ?? `${fresh.ATELIER_DATA_DIR}/atelier.db`,
    };
    const { stdout } = await run(
      process.execPath,
      ['bin/atelier.mjs', 'accounts', 'create', '--email', 'shutdown@example.test', '--json'],
      { cwd: root, env },
    );
    apiKey = JSON.parse(stdout).api_key;
    server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env });
    server.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    server.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    for (;;) {
      const up = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (server.exitCode !== null) throw new Error(`server exited:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await removeTestData(config);
  });

  test('in-flight requests finish, streams end with an event, the process exits 0, leases are handed back', async () => {
    const headers = { ...bearer(apiKey), 'content-type': 'application/json' };
    const generated = await fetch(`${base}/api/v1/generate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'slow', count: 2 }),
    });
    const ids = ((await generated.json()) as { task_ids: string[] }).task_ids;
    const stream = await fetch(`${base}/api/v1/tasks/events?ids=${ids.join(',')}`, {
      headers: bearer(apiKey),
    });
    const body = stream.body as ReadableStream<Uint8Array>;
    await readStream(body, /event: task[\s\S]*event: task/);
    const longPoll = fetch(`${base}/api/v1/tasks?ids=${ids.join(',')}&wait=60`, { headers: bearer(apiKey) });

    // An upload the server has taken (its 100 Continue is the proof) and whose body is half sent
    // when the signal comes: it must still be answered.
    const png = await makePng(64, 48);
    let sendRest = () => {};
    let upload: Promise<{ status: number; body: string }> = Promise.resolve({ status: 0, body: '' });
    const accepted = new Promise<void>((resolveAccepted) => {
      upload = new Promise((resolve, reject) => {
        const req = httpRequest(
          `${base}/api/v1/upload`,
          {
            method: 'POST',
            headers: {
              ...bearer(apiKey),
              'content-type': 'image/png',
              'content-length': png.length,
              expect: '100-continue',
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.on('continue', () => {
          req.write(png.subarray(0, 20));
          sendRest = () => req.end(png.subarray(20));
          resolveAccepted();
        });
      });
    });
    await accepted;
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));

    server.kill('SIGTERM');
    sendRest();
    const lastGenerate = await fetch(`${base}/api/v1/generate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'during shutdown', count: 1 }),
    }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as { error?: { type: string } } }),
      () => undefined, // the listener may already be closed: refused, never a half answer
    );
    if (lastGenerate) {
      assert.ok([200, 503].includes(lastGenerate.status), JSON.stringify(lastGenerate));
      if (lastGenerate.status === 503) assert.equal(lastGenerate.body.error?.type, 'service_unavailable');
    }

    assert.match(await readStream(body, /event: shutdown/), /event: shutdown/);
    assert.equal((await longPoll).status, 200);
    const uploaded = await upload;
    assert.equal(uploaded.status, 200, uploaded.body);
    assert.equal(await exited, 0, output);

    const db = await openDatabase(config.databaseUrl);
    try {
      const { rows } = await sql<{
        n: number;
      }>`select count(*) as n from tasks where lease_owner is not null`.execute(db);
      assert.equal(Number(rows[0]?.n), 0, 'every lease was handed back');
    } finally {
      await db.destroy();
    }
  });
});
