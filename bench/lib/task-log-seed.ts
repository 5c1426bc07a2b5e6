/**
 * The seed of the task-log row (A1): a million tasks (one per generation) over a few accounts, written
 * by two INSERT … SELECT statements over a number series (PostgreSQL's generate_series, SQLite's
 * recursive CTE) before the server under test starts. The mix is what an operator's log holds after
 * weeks: accounts from 50 % of the traffic down to 1 %, a quarter of the tasks from the website (no
 * key), three routes, 7 % failed with three kinds of error, refusals, second attempts and fallbacks
 * here and there, one task a second ending about now. Then ANALYZE, as a live store's statistics.
 */
import { sql } from 'kysely';
import { isPostgresUrl, openDatabase } from '../../src/infra/store/database.js';

export interface LogAccount {
  id: string;
  keyId: string;
  /** Its share of the tasks, percent; the shares add up to 100. */
  percent: number;
}

const quote = (text: string) => {
  if (!/^[\w@.-]+$/.test(text)) throw new Error(`unexpected seed value ${text}`);
  return `'${text}'`;
};

/** CASE over `n % 100` picking each account's `pick(account)` by its share. */
function byShare(accounts: LogAccount[], pick: (account: LogAccount) => string): string {
  let upTo = 0;
  const arms = accounts.map((account) => {
    upTo += account.percent;
    return `WHEN n % 100 < ${upTo} THEN ${pick(account)}`;
  });
  return `CASE ${arms.join(' ')} END`;
}

const FAILED = '(n * 37) % 100 < 7';
const PROVIDER = "CASE n % 3 WHEN 0 THEN 'openai' WHEN 1 THEN 'gemini' ELSE 'fal' END";
const UPSTREAM_MODEL =
  "CASE n % 3 WHEN 0 THEN 'gpt-image-1' WHEN 1 THEN 'gemini-2.5-flash-image' ELSE 'flux/dev' END";
const MODEL = "CASE n % 3 WHEN 0 THEN 'base-image-2' WHEN 1 THEN 'flash-image' ELSE 'flux-dev' END";
const ERROR = `CASE WHEN ${FAILED} THEN CASE (n / 3) % 3
  WHEN 0 THEN 'Upstream refused: content policy violation'
  WHEN 1 THEN 'upstream timeout after 120 s' ELSE 'Quota 100% used' END ELSE NULL END`;
const FALLBACK = `'[{"from":"openai/gpt-image-1","to":"fal/flux/dev","at":0,"error":"upstream 503"}]'`;

function statements(accounts: LogAccount[], count: number, base: number, postgres: boolean) {
  const [prefix, from] = postgres
    ? ['', `generate_series(1, ${count}) AS s(n)`]
    : [`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${count}) `, 's'];
  const account = byShare(accounts, (a) => quote(a.id));
  const key = `CASE WHEN (n / 7) % 4 = 0 THEN NULL ELSE ${byShare(accounts, (a) => quote(a.keyId))} END`;
  const created = `(${base} + n * 1000)`;
  const started = `(${created} + (n % 7) * 100)`;
  const finished = `(${started} + 2000 + (n % 13) * 300)`;
  const generations = `${prefix}INSERT INTO generations (id, account_id, source, prompt, model, mode, aspect,
      image_size, image_count, refs_json, ref_keys_json, rejected, created_at, deleted_at)
    SELECT 'gen_log_' || n, ${account}, CASE WHEN (n / 7) % 4 = 0 THEN 'web' ELSE 'api' END,
      'seeded log item ' || n, ${MODEL}, 'text', '1:1', '1K', 1, '[]', '[]', 0, ${created}, NULL FROM ${from}`;
  const tasks = `${prefix}INSERT INTO tasks (id, generation_id, account_id, idx, provider, upstream_model, status,
      progress, error, image_url, blob_key, width, height, content_type, bytes, upstream_id, attempts,
      needs_reconcile, polls, next_run_at, lease_owner, lease_expires_at, deadline_at, started_at, finished_at,
      created_at, waiting_for, capacity_pool, waiting_since, cost_micros, cost_source, cost_reserved_micros,
      api_key_id, upstream_key_id, partial_images, partial_frames, usage_json, updated_at, upstream_refusals,
      fallbacks_json, model, submits)
    SELECT 'tsk_log_' || n, 'gen_log_' || n, ${account}, 0, ${PROVIDER}, ${UPSTREAM_MODEL},
      CASE WHEN ${FAILED} THEN 'failed' ELSE 'completed' END, CASE WHEN ${FAILED} THEN 0 ELSE 100 END, ${ERROR},
      CASE WHEN ${FAILED} THEN NULL ELSE '/files/seed/tsk_log_' || n || '.png' END,
      CASE WHEN ${FAILED} THEN NULL ELSE 'seed/tsk_log_' || n || '.png' END, 1024, 1024, 'image/png', 1000,
      NULL, CASE WHEN n % 11 = 0 THEN 2 ELSE 1 END, 0, 1, ${created}, NULL, NULL, ${created} + 1200000,
      ${started}, ${finished}, ${created}, NULL, NULL, NULL,
      CASE WHEN ${FAILED} THEN NULL ELSE 20000 + (n % 3) * 20000 END, 'catalog_price', 0, ${key}, NULL, 0, 0,
      NULL, ${finished}, CASE WHEN n % 17 = 0 THEN 1 + n % 3 ELSE 0 END,
      CASE WHEN n % 29 = 0 THEN ${FALLBACK} ELSE NULL END, ${MODEL}, CASE WHEN n % 11 = 0 THEN 2 ELSE 1 END FROM ${from}`;
  return [generations, tasks, 'ANALYZE'];
}

/** Writes `count` tasks, the last about a minute ago; returns the first task's created_at and the time taken. */
export async function seedTaskLog(databaseUrl: string, accounts: LogAccount[], count: number) {
  const started = performance.now();
  const base = Date.now() - 60_000 - count * 1000;
  const db = await openDatabase(databaseUrl);
  try {
    for (const statement of statements(accounts, count, base, isPostgresUrl(databaseUrl)))
      await sql.raw(statement).execute(db);
  } finally {
    await db.destroy();
  }
  return { firstCreatedAt: base + 1000, seconds: (performance.now() - started) / 1000 };
}
