import type { Clock } from '../../base/runtime/clock.js';
import { enqueueBlobPurges } from '../../infra/blobs/blob-purges.js';
import type { Db } from '../../infra/store/database.js';
import { purgeWork } from './work-purge.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Rows one account's expiry takes per run (the next run takes the rest). */
const EXPIRY_BATCH = 200;

/** Retention in days of results and of uploads, where one is set (0 or absent: not set). */
export interface RetentionDays {
  results?: number | null | undefined;
  uploads?: number | null | undefined;
}

/** Where retention periods come from besides the account's own: the deployment and the tier policies. */
export interface RetentionSources {
  deployment: { results: number; uploads: number };
  /** The retention of a tier's policy in force now, if it sets one. */
  tier(tier: string): RetentionDays | undefined;
}

/** The shortest of the retentions set (days), or undefined when none is: the strictest wins. */
export function shortestDays(...days: (number | null | undefined)[]): number | undefined {
  const set = days.filter((d): d is number => typeof d === 'number' && d > 0);
  return set.length === 0 ? undefined : Math.min(...set);
}

/** What expiry needs: the store, the clock, the sources, and the removal that keeps history totals right. */
export interface ExpiryDeps {
  db: Db;
  clock: Clock;
  retention: RetentionSources;
  /** Deletes a work from saved works (as the owner's delete does: totals, history version). */
  markRemoved(accountId: string, generationId: string): Promise<unknown>;
}

/**
 * The housekeeping job of retention: for each account, the works older than its results retention
 * and the uploads older than its uploads retention are removed with their files (purged as a delete
 * is, the reason `expired`); their URLs answer 410. Task records and usage stay.
 */
export async function expireOldData(deps: ExpiryDeps): Promise<{ works: number; uploads: number }> {
  const { db, clock, retention } = deps;
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'tier', 'retention_results_days', 'retention_uploads_days'])
    .execute();
  const counts = { works: 0, uploads: 0 };
  const now = clock.now();
  const resultsDaysOf = new Map<string, number | undefined>();
  for (const account of accounts) {
    const tier = retention.tier(account.tier);
    const results = shortestDays(retention.deployment.results, tier?.results, account.retention_results_days);
    const uploads = shortestDays(retention.deployment.uploads, tier?.uploads, account.retention_uploads_days);
    resultsDaysOf.set(account.id, results);
    if (results !== undefined) counts.works += await expireWorks(deps, account.id, now - results * DAY_MS);
    if (uploads !== undefined)
      counts.uploads += await expireUploads(db, account.id, now - uploads * DAY_MS, now);
  }
  counts.works += await expireKeysWorks(deps, resultsDaysOf, now);
  return counts;
}

/**
 * Retention per API key: the works made with a key (its tasks' `api_key_id`) whose own results
 * retention is shorter than its account's go by the key's; the key's other works are the account's.
 */
async function expireKeysWorks(
  deps: ExpiryDeps,
  resultsDaysOf: Map<string, number | undefined>,
  now: number,
): Promise<number> {
  const keys = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'retention_results_days'])
    .where('retention_results_days', 'is not', null)
    .execute();
  let expired = 0;
  for (const key of keys) {
    const accountDays = resultsDaysOf.get(key.account_id);
    const days = shortestDays(accountDays, key.retention_results_days);
    if (days === undefined || days === accountDays) continue;
    expired += await expireWorks(deps, key.account_id, now - days * DAY_MS, key.id);
  }
  return expired;
}

/** Removes the account's works made before `cutoff` (with `keyId`: those made with that key), with their files. */
async function expireWorks(
  deps: ExpiryDeps,
  accountId: string,
  cutoff: number,
  keyId?: string,
): Promise<number> {
  let query = deps.db
    .selectFrom('generations')
    .select('id')
    .where('account_id', '=', accountId)
    .where('purged_at', 'is', null)
    .where('created_at', '<', cutoff);
  if (keyId !== undefined)
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tasks')
          .select('tasks.id')
          .whereRef('tasks.generation_id', '=', 'generations.id')
          .where('tasks.api_key_id', '=', keyId),
      ),
    );
  const old = await query.limit(EXPIRY_BATCH).execute();
  let expired = 0;
  for (const { id } of old) {
    await deps.markRemoved(accountId, id);
    if (await purgeWork(deps.db, deps.clock, id, 'expired')) expired++;
  }
  return expired;
}

/** Removes the account's uploads stored before `cutoff`; their files go once no work uses them. */
async function expireUploads(db: Db, accountId: string, cutoff: number, now: number): Promise<number> {
  const old = await db
    .selectFrom('assets')
    .select(['id', 'blob_key'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'upload')
    .where('created_at', '<', cutoff)
    .limit(EXPIRY_BATCH)
    .execute();
  if (old.length === 0) return 0;
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('assets')
      .where(
        'id',
        'in',
        old.map((row) => row.id),
      )
      .execute();
    await enqueueBlobPurges(trx, {
      keys: old.map((row) => row.blob_key),
      accountId,
      reason: 'expired',
      dueAt: now,
    });
  });
  return old.length;
}
