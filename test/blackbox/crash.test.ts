import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { openDatabase } from '../../src/infra/store/database.js';
import { realProcessEnv } from '../support/real-process-env.js';
import { type RealServer, startRealServer } from '../support/real-server.js';
import { dumpDatabase, findSecrets, sqliteFilesText, sqlitePathOf } from '../support/secret-scan.js';
import { removeTestData } from '../support/test-database.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const TASKS = 200;
const SUBMIT_CONCURRENCY = 16;
/** Bound on waiting for the last callbacks: a killed node's task leases run out after 30 s, its delivery leases after 60 s. */
const RECOVERY_TIMEOUT_MS = 110_000;

/** A small seeded generator, so a failing run can be replayed with ATELIER_CRASH_SEED. */
function seededRandom(seed: number) {
  // Mixed first, so that nearby seeds (101, 202) do not start alike.
  let state = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return (min: number, max: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return min + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (max - min + 1));
  };
}

interface Answer {
  status: number;
  body: string;
  replayed: boolean;
}

/**
 * Crash durability, black box: the real process on one data dir (SQLite, or PostgreSQL in that half
 * of npm test), 200 tasks submitted with Idempotency-Keys and callbackUrls, killed with SIGKILL at
 * three moments — during submission, mid-delivery, mid-rendering — and restarted each time.
 * Afterwards every acknowledged task is final, no generation exists twice, every key replays its
 * exact first answer, and every task's callback arrived with a valid Standard Webhooks signature.
 */
describe('crash durability: kill -9 during submission, mid-delivery and mid-rendering', () => {
  const seed = Number(process.env.ATELIER_CRASH_SEED ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const keys = Array.from({ length: TASKS }, (_, i) => `crash-${seed}-${i}`);
  const acknowledged = new Map<string, string>();
  const figures: Record<string, number> = { seed, tasks: TASKS, kills: 0 };
  let env: NodeJS.ProcessEnv;
  let base: string;
  let receiver: WebhookReceiver;
  let server: RealServer | undefined;
  let apiKey: string;
  let webhookSecret = '';
  let logs = '';
  const password = 'crash test: correct horse/battery+staple?';
  const upstreamKey = `sk-crash-upstream-${seed}-deadbeefcafe`;

  const payload = (i: number) => ({
    prompt: `crash durability ${seed} #${i}`,
    imageSize: '1K',
    callbackUrl: receiver.url,
  });
  const start = async () => {
    server = await startRealServer(env, (text) => {
      logs += text;
    });
  };
  const kill = async () => {
    await server?.kill9();
    figures.kills = (figures.kills ?? 0) + 1;
  };
  const authorized = { authorization: '' };

  /** POSTs every key's generate request, 16 at a time; with `killAfter`, kill -9 the server at that many answers. */
  async function submitAll(killAfter?: number): Promise<Map<string, Answer>> {
    const answers = new Map<string, Answer>();
    let next = 0;
    let killing: Promise<void> | undefined;
    const worker = async () => {
      while (next < keys.length && !killing) {
        const i = next++;
        const key = keys[i] as string;
        try {
          const response = await fetch(`${base}/api/v1/generate`, {
            method: 'POST',
            headers: { ...authorized, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(payload(i)),
          });
          const answer = {
            status: response.status,
            body: await response.text(),
            replayed: response.headers.get('idempotent-replayed') === 'true',
          };
          answers.set(key, answer);
          if (killAfter !== undefined && answers.size >= killAfter) killing ??= kill();
        } catch {
          // The server died with this request in flight: no answer.
        }
      }
    };
    await Promise.all(Array.from({ length: SUBMIT_CONCURRENCY }, worker));
    await killing;
    return answers;
  }

  /** Task states straight from the store (the server is down): how a kill left the work. */
  async function taskStates(): Promise<Record<string, number>> {
    const db = await openDatabase(env.ATELIER_DATABASE_URL as string);
    try {
      const rows = await db
        .selectFrom('tasks')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    } finally {
      await db.destroy();
    }
  }
  const verifiedTasks = () =>
    new Set(receiver.received.filter((c) => c.verified && c.status === 'completed').map((c) => c.taskId));

  before(async () => {
    receiver = await startWebhookReceiver();
    ({ env, base } = await realProcessEnv('atelier-crash-', {
      ATELIER_UPLOAD_ALLOWED_HOSTS: receiver.host,
      ATELIER_LOCAL_LATENCY_MS: '2000',
      ATELIER_WORKER_CONCURRENCY: '50',
      ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0,250,500,1000,2000,4000,8000,8000',
      LOG_LEVEL: 'info',
    }));
    // The account, as the CLI makes it: with a password and an upstream key, for the secrets scan.
    const core = await createCore(loadConfig(env));
    try {
      const created = await core.accounts.create({ email: 'crash@example.test', password });
      await core.accounts.setUpstreamKey(created.account.id, 'gemini', upstreamKey);
      apiKey = created.apiKey;
    } finally {
      await core.close();
    }
    authorized.authorization = `Bearer ${apiKey}`;
  });

  after(async () => {
    await server?.kill9();
    await receiver?.close();
    if (env) await removeTestData(loadConfig(env));
    process.stdout.write(`# crash figures ${JSON.stringify(figures)}\n`);
  });

  test('kill -9 during submission: acknowledged keys replay their exact answer, the rest retry cleanly, none is held', async () => {
    await start();
    const secret = await fetch(`${base}/api/v1/user/webhook-secret`, { headers: authorized });
    webhookSecret = ((await secret.json()) as { secret: string }).secret;
    receiver.setSecret(webhookSecret);

    const killAt = random(20, 120);
    const first = await submitAll(killAt);
    assert.equal(server?.child.signalCode, 'SIGKILL');
    for (const [key, answer] of first) {
      assert.equal(answer.status, 200, answer.body);
      acknowledged.set(key, answer.body);
    }
    figures.acknowledgedBeforeKill1 = first.size;

    await start();
    const again = await submitAll();
    let replayedAfterLostAnswer = 0;
    for (const key of keys) {
      const answer = again.get(key);
      assert.ok(answer, `${key} answered after the restart`);
      // 409 here would be the dead request's key still held (it used to be, for 10 minutes).
      assert.equal(answer.status, 200, `${key}: ${answer.body}`);
      const known = acknowledged.get(key);
      if (known !== undefined) {
        assert.equal(answer.replayed, true, `${key} replayed`);
        assert.equal(answer.body, known, `${key} replays the exact first answer`);
      } else {
        if (answer.replayed) replayedAfterLostAnswer++;
        acknowledged.set(key, answer.body);
      }
    }
    figures.committedButAnswerLost = replayedAfterLostAnswer;
    figures.retriedCleanly = TASKS - first.size - replayedAfterLostAnswer;
  });

  test('kill -9 mid-delivery: a callback is on the wire when the server dies', async () => {
    const before = receiver.received.length;
    await receiver.waitFor(() => receiver.received.length >= before + random(0, 20), 60_000, 'callbacks');
    await receiver.holdNextCallback();
    await kill();
    figures.callbacksBeforeKill2 = receiver.received.length;
  });

  test('kill -9 mid-rendering: the restarted server dies with tasks in progress', async () => {
    await start();
    const before = receiver.received.length;
    const unfinished = TASKS - verifiedTasks().size;
    assert.ok(unfinished > 1, `tasks left to render at the third start: ${unfinished}`);
    // Killed before the last one ends: some tasks are still rendering.
    const more = Math.min(random(5, 30), unfinished - 1);
    await receiver.waitFor(() => receiver.received.length >= before + more, 60_000, 'callbacks');
    await kill();
    const states = await taskStates();
    figures.inProgressAtKill3 = states.in_progress ?? 0;
    figures.queuedAtKill3 = states.queued ?? 0;
    assert.ok((states.in_progress ?? 0) + (states.queued ?? 0) > 0, JSON.stringify(states));
  });

  test('restart: every task final, no generation twice, every key replays, every callback signed', async () => {
    await start();
    await receiver.waitFor(() => verifiedTasks().size >= TASKS, RECOVERY_TIMEOUT_MS, 'every task’s callback');

    const taskIds = [...acknowledged.values()].flatMap(
      (body) => (JSON.parse(body) as { task_ids: string[] }).task_ids,
    );
    assert.equal(new Set(taskIds).size, TASKS, 'one task per key');
    for (let i = 0; i < taskIds.length; i += 20) {
      const response = await fetch(`${base}/api/v1/tasks?ids=${taskIds.slice(i, i + 20).join(',')}`, {
        headers: authorized,
      });
      for (const task of ((await response.json()) as { tasks: Array<{ status: string }> }).tasks)
        assert.equal(task.status, 'completed');
    }
    assert.deepEqual([...verifiedTasks()].sort(), [...taskIds].sort(), 'a signed callback for each task');
    assert.ok(
      receiver.received.every((c) => c.verified),
      'every callback verifies',
    );
    const idsPerTask = new Map<string, Set<string>>();
    for (const c of receiver.received)
      idsPerTask.set(c.taskId, (idsPerTask.get(c.taskId) ?? new Set()).add(c.webhookId));
    assert.ok(
      [...idsPerTask.values()].every((ids) => ids.size === 1),
      'a retried callback keeps its webhook-id',
    );
    figures.callbacksReceived = receiver.received.length;
    figures.callbacksRepeated = receiver.received.length - idsPerTask.size;

    const replays = await submitAll();
    for (const key of keys) {
      const answer = replays.get(key);
      assert.equal(answer?.replayed, true, `${key} replayed`);
      assert.equal(answer?.body, acknowledged.get(key), `${key} replays its exact answer`);
    }
    figures.keysReplayed = replays.size;
    assert.equal(await server?.stop(), 0, 'a SIGTERM after the crashes still exits 0');

    const db = await openDatabase(env.ATELIER_DATABASE_URL as string);
    try {
      const generations = await db.selectFrom('generations').select('prompt').execute();
      assert.equal(generations.length, TASKS, 'no generation duplicated');
      assert.equal(new Set(generations.map((g) => g.prompt)).size, TASKS);
      figures.generations = generations.length;
      figures.tasksLost = TASKS - verifiedTasks().size;
      figures.duplicates = generations.length - new Set(generations.map((g) => g.prompt)).size;
    } finally {
      await db.destroy();
    }
  });

  test('secrets at rest after the crashes: not in the database file, its dump or the logs', async () => {
    const secrets = { apiKey, password, upstreamKey, webhookSecret };
    const url = env.ATELIER_DATABASE_URL as string;
    const dump = await dumpDatabase(url);
    const path = sqlitePathOf(url);
    const findings = [
      ...findSecrets(dump.text, secrets, 'the dump'),
      ...findSecrets(logs, secrets, 'the logs'),
      ...(path ? findSecrets(await sqliteFilesText(path), secrets, 'the database file') : []),
    ];
    assert.deepEqual(findings, []);
    assert.ok(dump.rows > TASKS * 2, `the dump holds the run (${dump.rows} rows)`);
  });
});
