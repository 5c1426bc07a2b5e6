import type { Clock } from '../../base/runtime/clock.js';
import { enqueueBlobPurges } from '../../infra/blobs/blob-purges.js';
import type { Db } from '../../infra/store/database.js';
import { eraseRemainingRows, removeCredentials } from './account-erase-rows.js';
import { noTaskRunning } from './work-purge.js';

/** Works (or uploads) one step of an erase removes in one transaction. */
const ERASE_BATCH = 200;

/** What erasing needs: the store, the clock, and the cancel of the account's unfinished tasks. */
export interface EraseDeps {
  db: Db;
  clock: Clock;
  /** Ends the account's queued and running tasks (through the engine, as an operator's cancel). */
  cancelUnfinished(accountId: string): Promise<unknown>;
  /** Tells every node's API-key cache that accounts changed (in the transaction, then here). */
  changes: { announce(trx: Db): Promise<void>; changedHere(): void };
}

/**
 * `erased`: no row of the account remains (its files are on the to-do list of files to remove);
 * `pending`: a task of it is still running, and the lifecycle housekeeping finishes the erase;
 * `absent`: there is no such account (erased before, or never was).
 */
export type EraseOutcome = 'erased' | 'pending' | 'absent';

/**
 * Erases an account (docs/operations.md, Erase an account). In steps, each one transaction and
 * each safe to run again, so an erase that stopped midway (a crash, a task still running) is
 * finished by running it again, which the lifecycle housekeeping does for every account marked
 * `erasing_at`: first its credentials go (keys, sessions, OAuth grants) and it is marked; then its
 * unfinished tasks are canceled; then its works (with their tasks, results and marks) and uploads
 * go a batch at a time, every file they used put on the to-do list (removed once no other row uses
 * it); last every other row keyed by it, its usage folded into the anonymous totals, in one
 * transaction that deletes the account's row.
 */
export async function eraseAccount(deps: EraseDeps, accountId: string): Promise<EraseOutcome> {
  const { db, clock } = deps;
  const account = await db
    .selectFrom('accounts')
    .select(['id', 'email'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return 'absent';
  await announced(deps, (trx) => removeCredentials(trx, accountId, clock.now()));
  await deps.cancelUnfinished(accountId);
  while ((await eraseWorks(db, clock, accountId)) === ERASE_BATCH);
  while ((await eraseUploads(db, clock, accountId)) === ERASE_BATCH);
  const left = await db
    .selectFrom('generations')
    .select('id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (left) return 'pending';
  await announced(deps, (trx) => eraseRemainingRows(trx, account));
  return 'erased';
}

/** Runs `change` in a transaction that announces a change of accounts (no node trusts a key it cached). */
async function announced(deps: EraseDeps, change: (trx: Db) => Promise<void>): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await change(trx);
    await deps.changes.announce(trx);
  });
  deps.changes.changedHere();
}

/** Finishes every erase that began (housekeeping): answers how many accounts are now gone. */
export async function finishErasures(deps: EraseDeps): Promise<number> {
  const erasing = await deps.db
    .selectFrom('accounts')
    .select('id')
    .where('erasing_at', 'is not', null)
    .execute();
  let erased = 0;
  for (const { id } of erasing) if ((await eraseAccount(deps, id)) === 'erased') erased++;
  return erased;
}

/**
 * Removes a batch of the account's works whose tasks have all ended, with their tasks, kept turns,
 * results, stars, collection entries and webhook callbacks; every file they used is listed to go.
 * Answers how many works it removed.
 */
async function eraseWorks(db: Db, clock: Clock, accountId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const works = await trx
      .selectFrom('generations')
      .select(['id', 'ref_keys_json', 'mask_key'])
      .where('account_id', '=', accountId)
      .where(noTaskRunning)
      .limit(ERASE_BATCH)
      .execute();
    if (works.length === 0) return 0;
    const ids = works.map((work) => work.id);
    const tasks = await trx
      .selectFrom('tasks')
      .select(['id', 'blob_key'])
      .where('generation_id', 'in', ids)
      .execute();
    const assets = await trx
      .selectFrom('assets')
      .select('blob_key')
      .where('generation_id', 'in', ids)
      .execute();
    await enqueueBlobPurges(trx, {
      keys: [
        ...tasks.map((task) => task.blob_key),
        ...assets.map((asset) => asset.blob_key),
        ...works.flatMap((work) => [...(JSON.parse(work.ref_keys_json) as string[]), work.mask_key]),
      ],
      accountId: null,
      reason: 'erased',
      dueAt: clock.now(),
    });
    const taskIds = tasks.map((task) => task.id);
    if (taskIds.length > 0)
      for (const table of ['task_turns', 'upstream_calls', 'webhook_deliveries', 'webhook_outbox'] as const)
        await trx.deleteFrom(table).where('task_id', 'in', taskIds).execute();
    for (const table of [
      'assets',
      'starred_works',
      'collection_items',
      'webhook_callbacks',
      'tasks',
    ] as const)
      await trx.deleteFrom(table).where('generation_id', 'in', ids).execute();
    // Other works made from these (lineage) lose their parent, as a deleted parent reads.
    await trx.updateTable('generations').set({ parent_id: null }).where('parent_id', 'in', ids).execute();
    await trx.deleteFrom('generations').where('id', 'in', ids).execute();
    return works.length;
  });
}

/** Removes a batch of the account's uploads; their files are listed to go. Answers how many. */
async function eraseUploads(db: Db, clock: Clock, accountId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const uploads = await trx
      .selectFrom('assets')
      .select(['id', 'blob_key'])
      .where('account_id', '=', accountId)
      .limit(ERASE_BATCH)
      .execute();
    if (uploads.length === 0) return 0;
    await trx
      .deleteFrom('assets')
      .where(
        'id',
        'in',
        uploads.map((row) => row.id),
      )
      .execute();
    await enqueueBlobPurges(trx, {
      keys: uploads.map((row) => row.blob_key),
      accountId: null,
      reason: 'erased',
      dueAt: clock.now(),
    });
    return uploads.length;
  });
}
