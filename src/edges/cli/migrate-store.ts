import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Kysely } from 'kysely';
import { type BlobStore, contentTypeOfKey, isBlobKey } from '../../infra/blobs/blob-store.js';
import type { Config } from '../../infra/config/config.js';
import type { Db } from '../../infra/store/database.js';

/**
 * The tables a single-node install hands over, parents before children (the order the migrations
 * create them, so foreign keys hold at every step). Not copied, as transient state that starts
 * well empty: `sign_in_failures` (a short-lived throttle: starting empty only forgives recent
 * typos; `oauth_rate_windows` likewise), `upstream_calls` (the slots of upstream calls in flight: a stopped install has none) and
 * `upstream_pools` (learned upstream capacity and holds: relearned from the upstreams' answers) and
 * `mcp_answers` (MCP clients' answers in flight, minutes old at most).
 */
export const TRANSIENT_TABLES = [
  'sign_in_failures',
  'oauth_rate_windows',
  'upstream_calls',
  'upstream_pools',
  'mcp_answers',
] as const;

export const MIGRATED_TABLES = [
  'accounts',
  'api_keys',
  'upstream_keys',
  'provider_keys',
  'generations',
  'generation_counts',
  'tasks',
  'task_turns',
  'usage_daily',
  'account_budgets',
  'key_budgets',
  'assets',
  'upload_usage',
  'sessions',
  'creation_views',
  'idempotency_keys',
  'idempotency_usage',
  'webhook_secrets',
  'webhook_callbacks',
  'webhook_deliveries',
  'webhook_outbox',
  'starred_works',
  'collections',
  'collection_items',
  'prompt_presets',
  'smart_collections',
  'oauth_clients',
  'oauth_authorizations',
  'oauth_grants',
  'oauth_retired_refresh_tokens',
  'oauth_seen_redirects',
  'audit_events',
  'policy_versions',
  'alert_rules',
  'alert_episodes',
  'alert_deliveries',
  'catalog_versions',
  'responses',
  'blob_purges',
  'spend_confirmations',
  'usage_erased',
] as const;

const BATCH_ROWS = 200;

export interface TableReport {
  table: string;
  source: number;
  /** Rows inserted by this run (0 on a repeat: rows already there are left as they are). */
  copied: number;
  target: number;
}

export interface MigrationReport {
  tables: TableReport[];
  blobs: { source: number; copied: number; present: number };
  /** True when every source row and blob is in the target. */
  complete: boolean;
}

/** The copy is by table name, row by row, whatever the columns: the typed schema does not apply. */
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

async function countRows(db: AnyDb, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Copies one table in batches; a row whose key is already in the target is skipped, so reruns are safe. */
async function copyTable(source: AnyDb, target: AnyDb, table: string): Promise<TableReport> {
  let copied = 0;
  for (let offset = 0; ; offset += BATCH_ROWS) {
    const rows = await source.selectFrom(table).selectAll().limit(BATCH_ROWS).offset(offset).execute();
    if (rows.length === 0) break;
    const result = await target
      .insertInto(table)
      .values(rows)
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    copied += Number(result.numInsertedOrUpdatedRows ?? 0);
    if (rows.length < BATCH_ROWS) break;
  }
  return { table, source: await countRows(source, table), copied, target: await countRows(target, table) };
}

/** Every blob key under a disk blob store's root (temp files and stray names are not keys). */
async function diskBlobKeys(root: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries.map((entry) => relative(root, join(root, entry)).split(sep).join('/')).filter(isBlobKey);
}

/**
 * Copies a single-node install (its SQLite database and the blobs under its data dir) into another
 * store — PostgreSQL and, when given, an S3 bucket. Idempotent: run it again after a partial run, or
 * after the old node kept serving for a while, and it adds only what is missing.
 */
export async function migrateStore(deps: {
  source: { db: Db; config: Config };
  target: { db: Db; blobs: BlobStore | undefined };
  progress?: (line: string) => void;
}): Promise<MigrationReport> {
  const { source, target } = deps;
  const progress = deps.progress ?? (() => {});
  const tables: TableReport[] = [];
  for (const table of MIGRATED_TABLES) {
    const report = await copyTable(source.db as unknown as AnyDb, target.db as unknown as AnyDb, table);
    progress(`${table}: ${report.copied} copied, ${report.target}/${report.source} in the target`);
    tables.push(report);
  }

  const blobs = { source: 0, copied: 0, present: 0 };
  if (target.blobs) {
    const keys = await diskBlobKeys(source.config.blobDir);
    blobs.source = keys.length;
    for (const key of keys) {
      if (!(await target.blobs.stat(key))) {
        await target.blobs.put(key, { path: join(source.config.blobDir, key) }, contentTypeOfKey(key));
        blobs.copied++;
      }
      blobs.present++;
    }
    progress(`blobs: ${blobs.copied} copied, ${blobs.present}/${blobs.source} in the bucket`);
  }
  const complete = tables.every((t) => t.target >= t.source) && blobs.present === blobs.source;
  return { tables, blobs, complete };
}
