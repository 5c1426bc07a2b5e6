import { insertTask, type SeededTask } from '../admin/task-log-seed.js';
import type { TestApp } from '../support/test-server.js';

const HOUR = 3_600_000;
const ROUTES = [
  ['openai', 'gpt-image-1.5', 'openai-image'],
  ['gemini', 'gemini-2.5-flash-image', 'flash'],
  ['local', 'local-v1', 'base-image-2'],
] as const;
const ERRORS = [
  'upstream timeout after 120 s',
  'Quota 100% used',
  `HTTP 503 from the upstream: Service Unavailable — ${'the upstream said it is overloaded, '.repeat(6)}try later`,
];
/** A prompt as long as people write them (a few thousand characters, no spaces in its tail). */
export const LONG_PROMPT = `${'a lighthouse on a cliff at dusk, painted in oils, '.repeat(40)}${'x'.repeat(300)}`;

/**
 * `count` finished tasks of the given accounts (their first API key, every fourth from the website),
 * on three routes, completed and failed with varied errors, one an hour and more ago (older than a
 * "last hour" window), the first with a long prompt. Returns them newest first.
 */
export async function seedOlderTasks(
  t: TestApp,
  accounts: Array<{ id: string; email: string }>,
  count: number,
): Promise<SeededTask[]> {
  const db = t.core.resources.db;
  const keys = await db.selectFrom('api_keys').select(['id', 'account_id']).execute();
  const now = Date.now();
  const seeded: SeededTask[] = [];
  for (let i = 0; i < count; i++) {
    const account = accounts[i % accounts.length] as { id: string; email: string };
    const [provider, upstreamModel, model] = ROUTES[Math.floor(i / 2) % ROUTES.length] as readonly [
      string,
      string,
      string,
    ];
    const failed = i % 3 === 1;
    const spec: SeededTask = {
      id: `tsk_seed${String(i).padStart(3, '0')}`,
      accountId: account.id,
      email: account.email,
      keyId: i % 4 === 3 ? null : (keys.find((key) => key.account_id === account.id)?.id ?? null),
      model,
      provider,
      upstreamModel,
      status: failed ? 'failed' : 'completed',
      error: failed ? (ERRORS[Math.floor(i / 3) % ERRORS.length] as string) : null,
      createdAt: now - 2 * HOUR - i * 7 * 60_000,
    };
    await insertTask(db, spec, { upstream_refusals: i % 5 === 0 ? 2 : 0, attempts: 1 + (i % 3) });
    seeded.push(spec);
  }
  await dressFirst(t, seeded[0] as SeededTask);
  return seeded;
}

/** The first task's long prompt, the fallback that moved it and its webhook's delivery (retried once). */
async function dressFirst(t: TestApp, task: SeededTask): Promise<void> {
  const db = t.core.resources.db;
  await db
    .updateTable('generations')
    .set({ prompt: LONG_PROMPT })
    .where('id', '=', `gen_${task.id}`)
    .execute();
  const move = {
    from: 'fal/flux/dev',
    to: `${task.provider}/${task.upstreamModel}`,
    at: task.createdAt + 300,
    error: 'HTTP 503 from fal',
  };
  await db
    .updateTable('tasks')
    .set({ fallbacks_json: JSON.stringify([move]) })
    .where('id', '=', task.id)
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: 'msg_seed000',
      account_id: task.accountId,
      task_id: task.id,
      url: 'https://hooks.example.test/atelier',
      type: 'task.completed',
      payload: '{}',
      state: 'succeeded',
      attempts: 2,
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
      lease_owner: null,
      lease_expires_at: null,
      created_at: task.createdAt + 3_600,
      updated_at: task.createdAt + 9_000,
      delivered_at: task.createdAt + 9_000,
    })
    .execute();
}
