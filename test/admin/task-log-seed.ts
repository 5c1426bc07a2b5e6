import type { Db } from '../../src/infra/store/database.js';
import type { TasksTable } from '../../src/infra/store/schema/tasks.js';
import type { TestApp } from '../support/test-server.js';

/** One seeded task, as the log's filters see it. */
export interface SeededTask {
  id: string;
  accountId: string;
  email: string;
  keyId: string | null;
  model: string;
  provider: string;
  upstreamModel: string;
  status: TasksTable['status'];
  error: string | null;
  createdAt: number;
}

export const BASE = Date.UTC(2026, 10, 1, 12);
const ROUTES = [
  ['openai', 'gpt-image-1'],
  ['gemini', 'gemini-2.5-flash-image'],
  ['fal', 'flux/dev'],
] as const;
const MODELS = ['base-image-2', 'flash-image', 'flux-dev'] as const;
const ERRORS = [
  'Upstream refused: content policy violation',
  'upstream timeout after 120 s',
  'Quota 100% used',
];

/** The account's first API key's id. */
async function keyIdOf(db: Db, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A generation and its one task, written as the engine would have left them. */
export async function insertTask(db: Db, spec: SeededTask, extra: Partial<TasksTable> = {}): Promise<void> {
  const generationId = `gen_${spec.id}`;
  await db
    .insertInto('generations')
    .values({
      id: generationId,
      account_id: spec.accountId,
      source: spec.keyId ? 'api' : 'web',
      prompt: `prompt of ${spec.id}`,
      model: spec.model,
      mode: 'text',
      aspect: '1:1',
      image_size: '1K',
      image_count: 1,
      refs_json: '[]',
      ref_keys_json: '[]',
      rejected: 0,
      created_at: spec.createdAt,
      deleted_at: null,
    })
    .execute();
  const final = spec.status === 'completed' || spec.status === 'failed';
  await db
    .insertInto('tasks')
    .values({
      id: spec.id,
      generation_id: generationId,
      account_id: spec.accountId,
      idx: 0,
      provider: spec.provider,
      upstream_model: spec.upstreamModel,
      model: spec.model,
      status: spec.status,
      progress: spec.status === 'completed' ? 100 : 0,
      error: spec.error,
      image_url: null,
      blob_key: null,
      width: null,
      height: null,
      content_type: null,
      bytes: null,
      upstream_id: null,
      attempts: 1,
      submits: final ? 1 : 0,
      needs_reconcile: 0,
      polls: 0,
      // Never due in the test: the engine is not started, and would not find it due anyway.
      next_run_at: spec.createdAt + 10 * 365 * 86_400_000,
      lease_owner: null,
      lease_expires_at: null,
      deadline_at: spec.createdAt + 10 * 365 * 86_400_000,
      started_at: final ? spec.createdAt + 500 : null,
      finished_at: final ? spec.createdAt + 3_500 : null,
      created_at: spec.createdAt,
      updated_at: spec.createdAt,
      waiting_for: null,
      capacity_pool: null,
      waiting_since: null,
      partial_images: 0,
      partial_frames: 0,
      usage_json: null,
      cost_micros: spec.status === 'completed' ? 40_000 : null,
      cost_source: spec.status === 'completed' ? 'catalog_price' : null,
      cost_reserved_micros: 0,
      api_key_id: spec.keyId,
      upstream_key_id: null,
      ...extra,
    })
    .execute();
}

/**
 * Three accounts (two keys' worth of API tasks and website tasks), three models on three routes,
 * every status, failures with error texts; two tasks share a created_at (the id breaks the tie).
 */
export async function seedTasks(
  t: TestApp,
  accounts: Array<{ id: string; email: string }>,
): Promise<SeededTask[]> {
  const db = t.core.resources.db;
  const keys = await Promise.all(accounts.map((account) => keyIdOf(db, account.id)));
  const statuses: TasksTable['status'][] = [
    'completed',
    'failed',
    'completed',
    'queued',
    'failed',
    'in_progress',
  ];
  const seeded: SeededTask[] = [];
  for (let i = 0; i < 24; i++) {
    const a = i % accounts.length;
    const account = accounts[a] as { id: string; email: string };
    const r = Math.floor(i / 3) % ROUTES.length;
    const [provider, upstreamModel] = ROUTES[r] as readonly [string, string];
    const status = statuses[i % statuses.length] as TasksTable['status'];
    const spec: SeededTask = {
      id: `tsk_log${String(i).padStart(3, '0')}`,
      accountId: account.id,
      email: account.email,
      keyId: i % 4 === 3 ? null : (keys[a] as string),
      model: MODELS[r] as string,
      provider,
      upstreamModel,
      status,
      error: status === 'failed' ? (ERRORS[Math.floor(i / 3) % ERRORS.length] as string) : null,
      // Tasks 10 and 11 share a millisecond.
      createdAt: BASE + (i === 11 ? 10 : i) * 60_000,
    };
    await insertTask(db, spec);
    seeded.push(spec);
  }
  return seeded;
}

/** Newest first: created_at, then id, descending (the log's order). */
export const newestFirst = (tasks: SeededTask[]): string[] =>
  [...tasks]
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((task) => task.id);
