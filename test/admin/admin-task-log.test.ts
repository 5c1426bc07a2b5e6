import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { TaskLogQuery } from '../../src/base/contract/admin-tasks.js';
import { dialectOf } from '../../src/infra/store/database.js';
import type { PagePlan } from '../../src/use-cases/read-models/index.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';
import { BASE, insertTask, newestFirst, type SeededTask, seedTasks } from './task-log-seed.js';

/**
 * Issue 43: the operator's task log. Tasks of three accounts on three routes, every status, failures
 * with error texts, a fallback and refusals, a completed task with its cost, stored result, calls and
 * webhook delivery; each filter against the seeded set, the keyset pages, a task's life, the plans.
 */
describe('the task log (admin API)', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let seeded: SeededTask[];
  let other: { id: string; email: string };

  before(async () => {
    t = await createTestApp({ startEngine: false });
    who = await operatorAndUser(t);
    r = requests(t);
    other = await t.createAccount(`Someone.Else-${Date.now()}@log.test`);
    seeded = await seedTasks(t, [who.operator, who.user, other]);
  });
  after(async () => {
    await t?.close();
  });

  /** Every page of a query, walked by its cursors. */
  async function allPages(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const after = cursor ? `&cursor=${cursor}` : '';
      const res = await r.get(`${ADMIN}/tasks?limit=${limit}${query}${after}`, who.op);
      assert.equal(res.statusCode, 200, res.body);
      ids.push(...res.json().tasks.map((row: { id: string }) => row.id));
      cursor = res.json().next_cursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  }

  test('every task, newest first (the id breaks a tie)', async () => {
    const res = await r.get(`${ADMIN}/tasks?limit=100`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().tasks.map((row: { id: string }) => row.id),
      newestFirst(seeded),
    );
    assert.equal(res.json().next_cursor, null);
  });

  test('each filter answers the seeded tasks it names, and they combine', async () => {
    const userKey = seeded.find((task) => task.accountId === who.user.id && task.keyId)?.keyId ?? '';
    const cases: Array<[string, (task: SeededTask) => boolean]> = [
      [`account=${who.user.id}`, (task) => task.accountId === who.user.id],
      ['account=someone.ELSE', (task) => task.accountId === other.id],
      [`key=${userKey}`, (task) => task.keyId === userKey],
      ['model=flash-image', (task) => task.model === 'flash-image'],
      ['route=fal/flux/dev', (task) => task.provider === 'fal' && task.upstreamModel === 'flux/dev'],
      ['provider=openai', (task) => task.provider === 'openai'],
      ['status=failed', (task) => task.status === 'failed'],
      ['status=queued', (task) => task.status === 'queued'],
      [
        `since=${BASE + 5 * 60_000}&until=${BASE + 12 * 60_000}`,
        (task) => task.createdAt >= BASE + 5 * 60_000 && task.createdAt < BASE + 12 * 60_000,
      ],
      ['error=POLICY', (task) => (task.error ?? '').toLowerCase().includes('policy')],
      ['error=100%25', (task) => (task.error ?? '').includes('100%')],
      [
        `status=completed&provider=gemini&account=${who.operator.id}`,
        (task) =>
          task.status === 'completed' && task.provider === 'gemini' && task.accountId === who.operator.id,
      ],
    ];
    for (const [query, wanted] of cases) {
      const expected = newestFirst(seeded.filter(wanted));
      assert.ok(
        expected.length > 0 && expected.length < seeded.length,
        `${query} picks some: ${expected.length}`,
      );
      const { ids } = await allPages(`&${query}`, 100);
      assert.deepEqual(ids, expected, query);
    }
    const none = await r.get(`${ADMIN}/tasks?error=nothing-like-this`, who.op);
    assert.deepEqual(none.json().tasks, []);
    // The error text's three terms (task-log-error-text.ts) pick the same rows, `%` and `_` taken
    // literally by each, alone and with another filter, after a cursor too.
    const after = { createdAt: BASE + 20 * 60_000, id: 'tsk_m' };
    for (const error of ['POLICY', '100%', '_', 'timeout', 'nothing-like-this'])
      for (const query of [
        { limit: 100, error },
        { limit: 100, error, provider: 'openai' },
      ])
        for (const cursor of [undefined, after]) {
          const ids = async (term: 'pattern' | 'rare' | 'common') =>
            (await t.core.taskLog.pageQuery(query, cursor, { errors: term }).execute()).map((row) => row.id);
          const pattern = await ids('pattern');
          assert.deepEqual(await ids('rare'), pattern, error);
          assert.deepEqual(await ids('common'), pattern, error);
        }
  });

  test('keyset pages: whole, in order, stable under inserts; a foreign cursor is refused', async () => {
    const { ids, pages } = await allPages('', 5);
    assert.deepEqual(ids, newestFirst(seeded));
    assert.equal(pages, Math.ceil(seeded.length / 5));
    // A page, then new tasks (newer, and one in the page's own millisecond), then the next page.
    const first = await r.get(`${ADMIN}/tasks?limit=11`, who.op);
    const cursor = first.json().next_cursor as string;
    const last = seeded.find((task) => task.id === first.json().tasks.at(-1).id) as SeededTask;
    const newer = {
      ...last,
      id: 'tsk_logzzz_newer',
      createdAt: BASE + 3_600_000,
      status: 'queued' as const,
      error: null,
    };
    const tie = { ...last, id: 'tsk_logzzz_tie', status: 'queued' as const, error: null };
    await insertTask(t.core.resources.db, newer);
    await insertTask(t.core.resources.db, tie);
    const next = await r.get(`${ADMIN}/tasks?limit=100&cursor=${cursor}`, who.op);
    assert.deepEqual(
      next.json().tasks.map((row: { id: string }) => row.id),
      newestFirst(seeded).slice(11),
    );
    const bad = await r.get(`${ADMIN}/tasks?cursor=bm90LWEtY3Vyc29y`, who.op);
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().error.type, 'invalid_request');
    await t.core.resources.db.deleteFrom('tasks').where('id', 'in', [newer.id, tie.id]).execute();
    await t.core.resources.db
      .deleteFrom('generations')
      .where('id', 'in', [`gen_${newer.id}`, `gen_${tie.id}`])
      .execute();
  });

  test("a completed task's row and life: cost, waits, calls, storage, webhook", async () => {
    const db = t.core.resources.db;
    const task = seeded.find((row) => row.status === 'completed') as SeededTask;
    const start = task.createdAt + 500;
    await db
      .insertInto('upstream_calls')
      .values([
        {
          id: 'call_a',
          pool: `${task.provider}/${task.upstreamModel}/k1`,
          task_id: task.id,
          owner: 'w1',
          started_at: start,
          ended_at: start + 200,
          refused: 1,
        },
        {
          id: 'call_b',
          pool: `${task.provider}/${task.upstreamModel}/k1`,
          task_id: task.id,
          owner: 'w1',
          started_at: start + 1_000,
          ended_at: start + 3_000,
          refused: 0,
        },
      ])
      .execute();
    await db
      .updateTable('tasks')
      .set({ upstream_refusals: 1, submits: 2 })
      .where('id', '=', task.id)
      .execute();
    await db
      .insertInto('assets')
      .values({
        id: 'ast_log1',
        account_id: task.accountId,
        kind: 'result',
        blob_key: `results/${task.id}.png`,
        url: `https://files.test/${task.id}.png`,
        content_type: 'image/png',
        bytes: 1234,
        width: 1024,
        height: 1024,
        sha256: 'ab'.repeat(32),
        generation_id: `gen_${task.id}`,
        task_id: task.id,
        created_at: task.createdAt + 3_400,
        original_name: null,
      })
      .execute();
    await db
      .insertInto('webhook_deliveries')
      .values({
        id: 'msg_log1',
        account_id: task.accountId,
        task_id: task.id,
        url: 'https://hooks.test/a',
        type: 'task.completed',
        payload: '{}',
        state: 'succeeded',
        attempts: 2,
        next_attempt_at: null,
        last_status_code: 200,
        last_error: null,
        lease_owner: null,
        lease_expires_at: null,
        created_at: task.createdAt + 3_500,
        updated_at: task.createdAt + 4_000,
        delivered_at: task.createdAt + 4_000,
      })
      .execute();
    const res = await r.get(`${ADMIN}/tasks/${task.id}`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    const life = res.json();
    assert.deepEqual(
      { ...life.task },
      {
        id: task.id,
        generation_id: `gen_${task.id}`,
        account_id: task.accountId,
        account_email: task.email,
        api_key_id: task.keyId,
        model: task.model,
        route: `${task.provider}/${task.upstreamModel}`,
        provider: task.provider,
        status: 'completed',
        error: null,
        created_at: task.createdAt,
        started_at: task.createdAt + 500,
        finished_at: task.createdAt + 3_500,
        cost_micros: 40_000,
        absorbed_micros: null,
        queue_wait_ms: 500,
        upstream_ms: 3_000,
        attempts: 2,
        refusals: 1,
        fallbacks: 0,
      },
    );
    assert.equal(life.admission.prompt, `prompt of ${task.id}`);
    assert.deepEqual(
      life.upstream_calls.map((call: { id: string; duration_ms: number; refused: boolean }) => [
        call.id,
        call.duration_ms,
        call.refused,
      ]),
      [
        ['call_a', 200, true],
        ['call_b', 2_000, false],
      ],
    );
    assert.equal(life.storage.asset_id, 'ast_log1');
    assert.equal(life.storage.bytes, 1234);
    assert.deepEqual(
      life.webhooks.map((d: { id: string; state: string; last_status_code: number }) => [
        d.id,
        d.state,
        d.last_status_code,
      ]),
      [['msg_log1', 'succeeded', 200]],
    );
    // The list's row is the same row.
    const listed = await r.get(`${ADMIN}/tasks?account=${task.accountId}&limit=100`, who.op);
    assert.deepEqual(
      listed.json().tasks.find((row: { id: string }) => row.id === task.id),
      life.task,
    );
  });

  test("a failed task's life: its error, fallback and refusals; nothing stored", async () => {
    const db = t.core.resources.db;
    const task = seeded.find((row) => row.status === 'failed') as SeededTask;
    const move = {
      from: 'openai/gpt-image-1',
      to: `${task.provider}/${task.upstreamModel}`,
      at: task.createdAt + 900,
      error: 'HTTP 503 from OpenAI',
    };
    await db
      .updateTable('tasks')
      .set({ fallbacks_json: JSON.stringify([move]), upstream_refusals: 3 })
      .where('id', '=', task.id)
      .execute();
    const res = await r.get(`${ADMIN}/tasks/${task.id}`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    const life = res.json();
    assert.equal(life.task.status, 'failed');
    assert.equal(life.task.error, task.error);
    assert.equal(life.task.cost_micros, null);
    assert.equal(life.task.refusals, 3);
    assert.equal(life.task.fallbacks, 1);
    assert.deepEqual(life.fallbacks, [move]);
    assert.equal(life.storage, null);
    assert.deepEqual(life.webhooks, []);
    assert.equal(life.capacity.next_run_at, null);
    const missing = await r.get(`${ADMIN}/tasks/tsk_nope`, who.op);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.type, 'not_found');
  });

  test('operators only', async () => {
    for (const url of [`${ADMIN}/tasks`, `${ADMIN}/tasks/${seeded[0]?.id}`]) {
      const plain = await r.get(url, who.plain);
      assert.equal(plain.statusCode, 403, plain.body);
      assert.equal(plain.json().error.type, 'forbidden');
      const nobody = await r.get(url, {});
      assert.equal(nobody.statusCode, 401, nobody.body);
    }
  });

  test('each filtered page is walked by an index, not a scan of tasks or generations', async () => {
    const db = t.core.resources.db;
    const postgres = dialectOf(db) === 'postgres';
    const base: TaskLogQuery = { limit: 50 };
    const queries: Array<[string, TaskLogQuery, RegExp, PagePlan?]> = [
      ['all', base, /tasks_log_created/],
      [
        'account',
        { ...base, account: who.user.id },
        /tasks_account_created|tasks_account_status|tasks_due_by_account|tasks_log_created/,
      ],
      ['key', { ...base, key: 'key_x' }, /tasks_key_created/],
      ['model', { ...base, model: 'flash-image' }, /tasks_log_model/],
      ['route', { ...base, route: 'openai/gpt-image-1' }, /tasks_log_route/],
      ['provider', { ...base, provider: 'openai' }, /tasks_log_created|tasks_log_route/],
      ['failed', { ...base, status: 'failed' }, /tasks_log_failed/],
      ['completed', { ...base, status: 'completed' }, /tasks_log_created|tasks_account_status/],
      ['queued', { ...base, status: 'queued' }, /tasks_log_created|tasks_account_status|tasks_due/],
      ['time', { ...base, since: BASE, until: BASE + 60_000 }, /tasks_log_created/],
      ['error', { ...base, error: 'policy' }, /tasks_log_errored|tasks_log_error_trgm/],
      ['common error text', { ...base, error: 'policy' }, /tasks_log_errored/, { errors: 'common' }],
      [
        'account, named',
        { ...base, account: who.user.id },
        /tasks_account_created|tasks_account_status|tasks_due_by_account/,
        { accountIds: [who.user.id] },
      ],
    ];
    for (const [name, query, index, pagePlan] of queries) {
      for (const after of [undefined, { createdAt: BASE, id: 'tsk_m' }]) {
        const compiled = t.core.taskLog.pageQuery(query, after, pagePlan).compile();
        const plan = await db.connection().execute(async (conn) => {
          if (postgres) await sql`set enable_seqscan = off`.execute(conn);
          const explain = postgres ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
          const result = await conn.executeQuery({ ...compiled, sql: `${explain} ${compiled.sql}` } as never);
          if (postgres) await sql`reset enable_seqscan`.execute(conn);
          return JSON.stringify(result.rows);
        });
        assert.match(plan, index, `${name}: ${plan}`);
        assert.doesNotMatch(
          plan,
          /SCAN (t|g|tasks|generations)(?! USING)\b|Seq Scan on (tasks|generations)/,
          `${name}: ${plan}`,
        );
      }
    }
    // The log's indexes take no read of the engine's: its count of unfinished tasks per provider
    // stays on the partial index of unfinished tasks.
    const counts =
      await sql`EXPLAIN ${sql.raw(postgres ? '' : 'QUERY PLAN')} select provider, status, count(*) from tasks where status in ('queued', 'in_progress') group by provider, status`.execute(
        db,
      );
    assert.doesNotMatch(JSON.stringify(counts.rows), /tasks_log_/);
  });
});
