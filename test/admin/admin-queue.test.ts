import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { AdminQueue, AdminQueueRoute } from '../../src/base/contract/admin-queue.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { cancelIdsQuery, queueGroupsQuery } from '../../src/capabilities/tasks/queue-reads.js';
import { dialectOf } from '../../src/infra/store/database.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { startReceiver, verify, waitFor } from '../support/scripted-webhook-receiver.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

const UPSTREAM_KEY = 'sk-upstream-queue';
const OPERATOR_CANCELED = 'Canceled by an operator';
const HELD = 'openai/gpt-image-1.5';
const REFUSED = 'openai/gpt-image-2';
const RETRIED = 'openai/gpt-image-1-mini';
const TURNED = 'openai/gpt-image-2-2026-04-21';

type Account = { id: string; email: string; apiKey: string };

/**
 * Issue 43: the operator's queue. One app whose OpenAI upstream (a loopback fake) holds calls: a
 * route limited to one call at once with its call held (the rest park for a slot), a route held by a
 * refusal's Retry-After, a route whose task waits to retry after a 503, and a route whose tasks wait
 * for a worker's turn while both of the node's worker slots hold calls. Three accounts with varied
 * tasks; the view's numbers, reasons and shares; each cancel scope; a canceled task through /api/v1
 * and its webhook; refusals; the audit log; the plans of the queries.
 */
describe('the queue (admin API)', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dir: string;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let alice: Account;
  let bob: Account;
  let carol: Account;
  const ids: Record<string, string[]> = {};

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    receiver = await startReceiver();
    dir = await mkdtemp(join(tmpdir(), 'atelier-queue-'));
    const catalog = join(dir, 'catalog.json');
    const openai = (id: string, route: string, extra: object = {}) => ({
      id,
      provider: 'openai',
      upstreamModel: route.slice('openai/'.length),
      modes: ['text'],
      ...extra,
    });
    await writeFile(
      catalog,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          openai('held', HELD, { capacity: { maxInFlight: 1 } }),
          openai('refused', REFUSED),
          openai('retried', RETRIED),
          openai('turned', TURNED),
        ],
      }),
    );
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
        ATELIER_SUBMIT_MAX_ATTEMPTS: '3',
        // Two calls held upstream fill the node: tasks due after them wait for a worker's turn.
        ATELIER_WORKER_CONCURRENCY: '2',
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
        ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0,100',
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
    const account = (name: string) => t.createAccount(`${name}-${Date.now()}@queue.test`, { tier: 'pro' });
    alice = await account('alice');
    bob = await account('bob');
    carol = await account('carol');
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await receiver?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const queue = async (): Promise<AdminQueue> => {
    const res = await r.get(`${ADMIN}/queue`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const routeOf = (state: AdminQueue, id: string): AdminQueueRoute | undefined =>
    state.routes.find((route) => route.route === id);
  /** Reads the queue until `ready` holds of the route (the engine works in the background). */
  const until = (id: string, ready: (route: AdminQueueRoute) => boolean, what: string) =>
    waitFor(
      what,
      async () => {
        const route = routeOf(await queue(), id);
        return route && ready(route) ? route : undefined;
      },
      30_000,
    );
  /** `count` images of `model` for `who`, the task ids kept under `label`. */
  async function generate(account: Account, model: string, count: number, label: string, callback?: string) {
    const res = await r.send('POST', '/api/v1/generate', bearer(account.apiKey), {
      prompt: `${label} for the queue`,
      model,
      imageSize: '1K',
      count,
      ...(callback ? { callbackUrl: callback } : {}),
    });
    assert.equal(res.statusCode, 200, res.body);
    ids[label] = [...(ids[label] ?? []), ...res.json().task_ids];
  }
  const cancel = (body: Record<string, unknown>, headers = who.op) =>
    r.send('POST', `${ADMIN}/queue/cancel`, headers, body);
  const record = async (account: Account, taskId: string) => {
    const res = await r.get(`/api/v1/tasks/${taskId}`, bearer(account.apiKey));
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('tasks waiting for a slot, a refusal, a retry and a turn: the numbers, the reasons, the shares', async () => {
    // A finished task, for the refused cancel later.
    await generate(alice, 'base-image-2', 1, 'done');
    await pollUntilFinal(t.app, alice.apiKey, ids.done?.[0] ?? '');

    // Held: one call at once, and the upstream holds it; everyone else's tasks park on the pool.
    fake.script({ kind: 'hang' });
    await generate(alice, 'held', 1, 'held-alice-call');
    await until(HELD, (route) => route.in_progress === 1 && route.pools[0]?.in_flight === 1, 'the held call');
    await generate(alice, 'held', 4, 'held-alice');
    await generate(alice, 'held', 4, 'held-alice');
    await generate(bob, 'held', 2, 'held-bob');
    await generate(carol, 'held', 1, 'held-carol', receiver.answer('/carol'));
    await until(HELD, (route) => route.waiting.capacity === 11, 'eleven tasks parked for a slot');

    // Refused with a Retry-After of five minutes: the pool holds; the tasks after it park.
    fake.script({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '300' },
      json: {
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    });
    await generate(bob, 'refused', 1, 'refused-bob');
    await until(REFUSED, (route) => route.waiting.capacity === 1, 'the refused task parked');
    await generate(carol, 'refused', 2, 'refused-carol');
    await until(REFUSED, (route) => route.waiting.capacity === 3, 'three tasks parked behind the hold');

    // A 503 with a Retry-After of two minutes: the task waits to retry.
    fake.script({
      kind: 'error',
      status: 503,
      headers: { 'retry-after': '120' },
      json: { error: { message: 'Overloaded', type: 'server_error', param: null, code: null } },
    });
    await generate(carol, 'retried', 1, 'retried-carol');
    await until(RETRIED, (route) => route.waiting.retry === 1, 'the task waiting to retry');

    // A second held call fills the node's two worker slots: tasks due after it wait for a turn.
    fake.script({ kind: 'hang' });
    await generate(bob, 'turned', 1, 'turned-bob-call');
    await until(TURNED, (route) => route.in_progress === 1, 'the second held call');
    await generate(alice, 'turned', 2, 'turned-alice');
    await until(TURNED, (route) => route.waiting.turn === 2, 'two tasks waiting for a worker');

    const state = await queue();
    assert.deepEqual(state.totals, { waiting: 17, in_flight: 2, queued: 17, in_progress: 2 });
    assert.deepEqual(
      state.routes.map((route) => route.route).slice(0, 4),
      [HELD, REFUSED, TURNED, RETRIED],
      'most waiting first',
    );

    const held = routeOf(state, HELD) as AdminQueueRoute;
    assert.deepEqual(held.waiting, { total: 11, capacity: 11, turn: 0, retry: 0 });
    assert.deepEqual(held.in_flight, { total: 1, working: 0, upstream: 1 });
    assert.deepEqual([held.queued, held.in_progress], [11, 1]);
    assert.equal(held.circuit?.state, 'closed');
    assert.equal(held.hold, null);
    assert.equal(held.pools.length, 1);
    const pool = held.pools[0];
    assert.ok(pool && /^[0-9a-f]{16}$/.test(pool.key) && !pool.pool.includes(UPSTREAM_KEY));
    assert.deepEqual(pool.key_names, ['env']);
    assert.deepEqual(
      [pool.max_in_flight, pool.per_minute, pool.in_flight, pool.parked, pool.called_back],
      [1, null, 1, 11, 0],
    );
    assert.deepEqual(pool.hold, { reason: 'configured_limit', until: null });
    assert.deepEqual(
      pool.accounts.map((a) => [a.email, a.parked, a.share]),
      [
        [alice.email, 8, 8 / 11],
        [bob.email, 2, 2 / 11],
        [carol.email, 1, 1 / 11],
      ],
    );
    // Fair turns: the next ten go to the accounts with the fewest tasks in flight first (Alice has
    // one), one each in rounds: Bob and Carol get all theirs, Alice the rest.
    assert.equal(held.turns_counted, 10);
    assert.deepEqual(
      held.accounts.map((a) => [a.email, a.waiting, a.in_flight, a.queued, a.waiting_share, a.next_turns]),
      [
        [alice.email, 8, 1, 8, 8 / 11, 7],
        [bob.email, 2, 0, 2, 2 / 11, 2],
        [carol.email, 1, 0, 1, 1 / 11, 1],
      ],
    );
    assert.equal(held.accounts_omitted, 0);

    const refused = routeOf(state, REFUSED) as AdminQueueRoute;
    assert.deepEqual(refused.waiting, { total: 3, capacity: 3, turn: 0, retry: 0 });
    const refusedPool = refused.pools[0];
    assert.equal(refusedPool?.hold?.reason, 'rate_limit_refusal');
    assert.ok((refusedPool?.hold?.until ?? 0) > state.now + 250_000, 'held for the Retry-After');
    assert.equal(refusedPool?.refused_in_window, 1);
    assert.deepEqual(
      refused.accounts.map((a) => [a.email, a.waiting, a.next_turns]),
      [
        [carol.email, 2, 2],
        [bob.email, 1, 1],
      ],
    );

    const retried = routeOf(state, RETRIED) as AdminQueueRoute;
    assert.deepEqual(retried.waiting, { total: 1, capacity: 0, turn: 0, retry: 1 });
    assert.ok((retried.next_retry_at ?? 0) > state.now + 100_000, 'the retry waits for the Retry-After');
    assert.equal(retried.pools[0]?.parked, 0);

    const turned = routeOf(state, TURNED) as AdminQueueRoute;
    assert.deepEqual(turned.waiting, { total: 2, capacity: 0, turn: 2, retry: 0 });
    assert.deepEqual(turned.in_flight, { total: 1, working: 0, upstream: 1 });
    assert.deepEqual(
      turned.accounts.map((a) => [a.email, a.waiting, a.in_flight]),
      [
        [alice.email, 2, 0],
        [bob.email, 0, 1],
      ],
    );
    // The local renderer's finished task is not in the queue.
    assert.equal(routeOf(state, 'local/local-v1'), undefined);
  });

  test('one task: ended failed for its caller and its webhook; finished, unknown and in-progress ones refused', async () => {
    const task = ids['held-carol']?.[0] ?? '';
    const res = await cancel({ task_id: task });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      scope: 'task',
      target: task,
      status: 'queued',
      canceled: 1,
      error: OPERATOR_CANCELED,
    });
    assert.deepEqual(await record(carol, task), {
      task_id: task,
      status: 'failed',
      progress: 0,
      error: OPERATOR_CANCELED,
    });
    const delivered = await waitFor('the failed webhook', async () => receiver.at('/carol')[0]);
    const secret = (await r.get('/api/v1/user/webhook-secret', bearer(carol.apiKey))).json().secret;
    const payload = verify(secret, delivered);
    assert.equal(payload.type, 'task.failed');
    assert.deepEqual([payload.data.task_id, payload.data.error], [task, OPERATOR_CANCELED]);
    // The caller's own cancel answers the canceled task as it is.
    const again = await r.send('POST', `/api/v1/tasks/${task}/cancel`, bearer(carol.apiKey));
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().error, OPERATOR_CANCELED);

    assertError(await cancel({ task_id: task }), 409, 'conflict');
    const done = await cancel({ task_id: ids.done?.[0] });
    assertError(done, 409, 'conflict');
    assert.match(done.json().error.message, /already completed/);
    assertError(await cancel({ task_id: 'tsk_nothing_like_this' }), 404, 'not_found');
    const inProgress = await cancel({ task_id: ids['held-alice-call']?.[0] });
    assertError(inProgress, 409, 'conflict');
    assert.match(inProgress.json().error.message, /in progress/);
    assertError(await cancel({}), 400, 'invalid_request');
    assertError(await cancel({ task_id: task, account_id: alice.id }), 400, 'invalid_request');
    assertError(await cancel({ route: 'no-slash' }), 400, 'invalid_request');
    assertError(await cancel({ account_id: 'acc_nobody' }), 404, 'not_found');
    assertError(await cancel({ account_id: alice.id }, who.plain), 403, 'forbidden');
    assertError(await r.get(`${ADMIN}/queue`, who.plain), 403, 'forbidden');
    assertError(await r.get(`${ADMIN}/queue`, {}), 401, 'unauthorized');
    const held = await until(HELD, (route) => route.waiting.capacity === 10, 'the canceled task gone');
    assert.deepEqual(
      held.pools[0]?.accounts.map((a) => a.email),
      [alice.email, bob.email],
    );
  });

  test("an account's queued tasks, on every route; its call in progress stays", async () => {
    const res = await cancel({ account_id: bob.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().scope, res.json().status, res.json().canceled], ['account', 'queued', 3]);
    for (const task of [...(ids['held-bob'] ?? []), ...(ids['refused-bob'] ?? [])])
      assert.equal((await record(bob, task)).error, OPERATOR_CANCELED);
    assert.equal((await record(bob, ids['turned-bob-call']?.[0] ?? '')).status, 'in_progress');
    const state = await queue();
    assert.deepEqual(
      routeOf(state, HELD)?.accounts.map((a) => [a.email, a.waiting]),
      [[alice.email, 8]],
    );
    assert.deepEqual(
      routeOf(state, REFUSED)?.accounts.map((a) => [a.email, a.waiting]),
      [[carol.email, 2]],
    );
  });

  test("a route's queued tasks, then a route's unfinished ones (a call in flight abandoned)", async () => {
    const res = await cancel({ route: HELD });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().scope, res.json().target, res.json().canceled], ['route', HELD, 8]);
    for (const task of ids['held-alice'] ?? [])
      assert.equal((await record(alice, task)).error, OPERATOR_CANCELED);
    assert.equal((await record(alice, ids['held-alice-call']?.[0] ?? '')).status, 'in_progress');

    const all = await cancel({ route: TURNED, status: 'unfinished' });
    assert.equal(all.statusCode, 200, all.body);
    assert.equal(all.json().canceled, 3);
    // The call held upstream is abandoned: its step is aborted, and its final state stays.
    const call = ids['turned-bob-call']?.[0] ?? '';
    const ended = await record(bob, call);
    assert.deepEqual([ended.status, ended.error, ended.imageUrl], ['failed', OPERATOR_CANCELED, undefined]);
    for (const task of ids['turned-alice'] ?? [])
      assert.equal((await record(alice, task)).error, OPERATOR_CANCELED);
    const none = await cancel({ route: 'openai/never-used' });
    assert.equal(none.json().canceled, 0);

    const state = await queue();
    assert.equal(routeOf(state, HELD)?.waiting.total, 0);
    assert.equal(routeOf(state, TURNED)?.in_flight.total, 0);
    assert.deepEqual(state.totals, { waiting: 3, in_flight: 1, queued: 3, in_progress: 1 });
  });

  test('every cancel is in the audit log with its scope and count', async () => {
    const res = await r.get(`${ADMIN}/audit?action=queue.cancel`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    const events = res
      .json()
      .items.map(
        (e: { target_type: string; target_id: string; after: { canceled: number; status: string } }) => [
          e.target_type,
          e.target_id,
          e.after.status,
          e.after.canceled,
        ],
      );
    assert.deepEqual(events, [
      ['route', 'openai/never-used', 'queued', 0],
      ['route', TURNED, 'unfinished', 3],
      ['route', HELD, 'queued', 8],
      ['account', bob.id, 'queued', 3],
      ['task', ids['held-carol']?.[0], 'queued', 1],
    ]);
    const first = res.json().items.at(-1);
    assert.equal(first.actor, who.operator.email);
    assert.equal(first.source, 'admin-api');
  });

  test('the queue and the cancels read the index of unfinished tasks, not a scan of tasks', async () => {
    const db = t.core.resources.db;
    const postgres = dialectOf(db) === 'postgres';
    const queries = [
      ['groups', queueGroupsQuery(Date.now()).compile(db)],
      ['account', cancelIdsQuery(db, { kind: 'account', accountId: alice.id }, ['queued']).compile()],
      ['route', cancelIdsQuery(db, { kind: 'route', routeId: HELD }, ['queued', 'in_progress']).compile()],
    ] as const;
    for (const [name, compiled] of queries) {
      const plan = await db.connection().execute(async (conn) => {
        if (postgres) await sql`set enable_seqscan = off`.execute(conn);
        const explain = postgres ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
        const result = await conn.executeQuery({ ...compiled, sql: `${explain} ${compiled.sql}` } as never);
        if (postgres) await sql`reset enable_seqscan`.execute(conn);
        return JSON.stringify(result.rows);
      });
      assert.match(plan, /tasks_due|tasks_account_status|tasks_due_by_account/, `${name}: ${plan}`);
      assert.doesNotMatch(
        plan,
        /tasks_log_|SCAN (t|tasks)(?! USING)\b|Seq Scan on tasks/,
        `${name}: ${plan}`,
      );
    }
  });
});
