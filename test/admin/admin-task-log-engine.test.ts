import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TaskLogRow } from '../../src/base/contract/admin-tasks.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { type FakeOpenAI, type OpenAIScript, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

const UPSTREAM_KEY = 'sk-task-log-engine';
const refusal = (status: number, message: string, headers?: Record<string, string>): OpenAIScript => ({
  kind: 'error',
  status,
  json: { error: { message, type: 'server_error', param: null, code: null } },
  ...(headers ? { headers } : {}),
});

/**
 * Issue 43: what the engine records is what the task log shows, for tasks run by the engine (not
 * seeded): a synchronous call answered at once has its first submit and one attempt; a refusal for
 * capacity is a refusal, not an attempt; a retried 5xx is two attempts; a safety refusal ends the
 * task failed after one attempt, started. One service, one after another.
 */
describe('the task log of tasks the engine ran', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let dir: string;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    dir = await mkdtemp(join(tmpdir(), 'atelier-task-log-engine-'));
    const catalog = join(dir, 'catalog.json');
    const upstream = { id: 'upstream', provider: 'openai', upstreamModel: 'gpt-image-1.5', modes: ['text'] };
    await writeFile(catalog, JSON.stringify({ models: [...DEFAULT_CATALOG.models, upstream] }));
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One image on `model` with the plain account's key; its row of the log once final. */
  async function logged(model: string, prompt: string, ...answers: OpenAIScript[]): Promise<TaskLogRow> {
    if (answers.length > 0) fake.script(...answers);
    const res = await r.send('POST', '/api/v1/generate', who.plain, { prompt, model, imageSize: '1K' });
    assert.equal(res.statusCode, 200, res.body);
    const [taskId = ''] = res.json<{ task_ids: string[] }>().task_ids;
    await pollUntilFinal(t.app, who.user.apiKey, taskId, 60_000);
    const life = await r.get(`${ADMIN}/tasks/${taskId}`, who.op);
    assert.equal(life.statusCode, 200, life.body);
    return life.json<{ task: TaskLogRow }>().task;
  }

  /** The row's figures the engine decides, with its first submit checked against its creation and end. */
  function figures(row: TaskLogRow) {
    assert.ok(row.started_at !== null, `${row.id} has its first submit`);
    assert.ok(row.started_at >= row.created_at && row.started_at <= (row.finished_at ?? 0), row.id);
    assert.equal(row.upstream_ms, (row.finished_at ?? 0) - row.started_at);
    return { status: row.status, attempts: row.attempts, refusals: row.refusals };
  }

  test('answered at once: started, one attempt (the OpenAI route and the local renderer)', async () => {
    const upstream = await logged('upstream', 'a lighthouse at noon', { kind: 'image' });
    assert.deepEqual(figures(upstream), { status: 'completed', attempts: 1, refusals: 0 });
    const local = await logged(DEFAULT_CATALOG.models[0]?.id ?? '', 'a lighthouse drawn here');
    assert.deepEqual(figures(local), { status: 'completed', attempts: 1, refusals: 0 });
  });

  test('refused for capacity, then drawn: one attempt and one refusal', async () => {
    const row = await logged(
      'upstream',
      'a lighthouse after a wait',
      refusal(429, 'Rate limit reached for requests', { 'retry-after': '0' }),
      { kind: 'image' },
    );
    assert.deepEqual(figures(row), { status: 'completed', attempts: 1, refusals: 1 });
  });

  test('a 500 retried, then drawn: two attempts', async () => {
    const row = await logged(
      'upstream',
      'a lighthouse after a fault',
      refusal(500, 'The server had an error'),
      {
        kind: 'image',
      },
    );
    assert.deepEqual(figures(row), { status: 'completed', attempts: 2, refusals: 0 });
  });

  test("refused by the upstream's safety system: failed after one attempt, started", async () => {
    const row = await logged('upstream', 'a forbidden lighthouse', {
      kind: 'error',
      status: 400,
      json: {
        error: {
          message: 'Your request was rejected by the safety system.',
          type: 'image_generation_user_error',
          param: null,
          code: 'moderation_blocked',
        },
      },
    });
    assert.deepEqual(figures(row), { status: 'failed', attempts: 1, refusals: 0 });
    assert.match(row.error ?? '', /safety/);
  });
});
