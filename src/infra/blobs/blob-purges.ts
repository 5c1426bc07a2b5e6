import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../store/database.js';
import type { PurgeReason } from '../store/schema/lifecycle.js';
import type { Database } from '../store/schema.js';
import { type BlobStore, isBlobKey } from './blob-store.js';
import { RENDITION_FORMATS, RENDITION_WIDTHS, RENDITIONS_PREFIX, renditionKey } from './renditions.js';

export type { PurgeReason };

/** How long a node holds a claimed file: past it, a node that died mid-way is taken for dead. */
export const PURGE_LEASE_MS = 5 * 60 * 1000;

/** Files one run of the job claims at most (the next run takes the rest). */
const PURGE_BATCH = 200;

/** Files to remove: written in the transaction of the row delete that stopped using them. */
export interface PurgeEntry {
  keys: readonly (string | null | undefined)[];
  accountId: string | null;
  reason: PurgeReason;
  dueAt: number;
}

/**
 * Puts files on the durable to-do list, in `executor`'s transaction (the row delete's). A key
 * already listed (even done: the same upload sent again, then deleted again) is due again.
 */
export async function enqueueBlobPurges(executor: Kysely<Database>, entry: PurgeEntry): Promise<void> {
  const keys = [...new Set(entry.keys)].filter(
    (key): key is string => typeof key === 'string' && isBlobKey(key) && !key.startsWith(RENDITIONS_PREFIX),
  );
  if (keys.length === 0) return;
  const rows = keys.map((blob_key) => ({
    blob_key,
    account_id: entry.accountId,
    reason: entry.reason,
    due_at: entry.dueAt,
    lease_owner: null,
    lease_until: null,
    done_at: null,
  }));
  await executor
    .insertInto('blob_purges')
    .values(rows)
    .onConflict((oc) =>
      oc.column('blob_key').doUpdateSet((eb) => ({
        account_id: eb.ref('excluded.account_id'),
        reason: eb.ref('excluded.reason'),
        due_at: eb.ref('excluded.due_at'),
        lease_owner: null,
        lease_until: null,
        done_at: null,
      })),
    )
    .execute();
}

/** `text` as a LIKE pattern matching itself (keys hold `_`, a LIKE wildcard). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Whether any row of any account still uses the file: an upload or result asset, a task of a work
 * whose files are kept, or such a work's references or mask. Uploads are named by their content, so
 * two accounts' uploads of the same bytes are one file: it stays until the last one goes.
 */
export async function blobStillUsed(db: Db, key: string): Promise<boolean> {
  const asset = await db.selectFrom('assets').select('id').where('blob_key', '=', key).executeTakeFirst();
  if (asset) return true;
  const task = await db
    .selectFrom('tasks')
    .innerJoin('generations', 'generations.id', 'tasks.generation_id')
    .select('tasks.id')
    .where('tasks.blob_key', '=', key)
    .where('generations.purged_at', 'is', null)
    .executeTakeFirst();
  if (task) return true;
  const pattern = `%${likeLiteral(JSON.stringify(key))}%`;
  const work = await db
    .selectFrom('generations')
    .select('id')
    .where('purged_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('mask_key', '=', key),
        eb(sql<string>`${sql.ref('ref_keys_json')}`, 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    )
    .executeTakeFirst();
  return work !== undefined;
}

/** Every key a file may occupy: the original and each rendition it may have. */
export function keysOfFile(key: string): string[] {
  const keys = [key];
  for (const width of RENDITION_WIDTHS)
    for (const format of RENDITION_FORMATS) keys.push(renditionKey(key, width, format));
  return keys;
}

/** The original a rendition key was made from (`renditions/w320/png/results/t.webp` → `results/t.png`). */
export function originalOfRendition(key: string): string | undefined {
  const match = /^renditions\/w\d+\/([a-z]+)\/(.+)\.[a-z]+$/.exec(key);
  return match ? `${match[2]}.${match[1]}` : undefined;
}

/**
 * The to-do list of files to remove and the job that works it. Every node may run the job: a file
 * is claimed with a lease (a conditional update only one node wins), so no file is worked twice at
 * once; a node that dies mid-way leaves its claim to expire and the next run finishes the file.
 * Removing is idempotent (an absent file or rendition is no error).
 */
export function createBlobPurges({
  db,
  blobs,
  clock,
  owner,
}: {
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  /** This process's name on its claims. */
  owner: string;
}) {
  async function claim(key: string, now: number): Promise<boolean> {
    const claimed = await db
      .updateTable('blob_purges')
      .set({ lease_owner: owner, lease_until: now + PURGE_LEASE_MS })
      .where('blob_key', '=', key)
      .where('done_at', 'is', null)
      .where('due_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /** Works one claimed file: kept when still used (the row goes), else removed with its renditions. */
  async function work(key: string): Promise<'removed' | 'kept'> {
    if (await blobStillUsed(db, key)) {
      await db
        .deleteFrom('blob_purges')
        .where('blob_key', '=', key)
        .where('lease_owner', '=', owner)
        .execute();
      return 'kept';
    }
    // Renditions first: an original left alone could make them again, the other way round not.
    const all = keysOfFile(key);
    for (let i = all.length - 1; i >= 0; i--) await blobs.delete(all[i] as string);
    await db
      .updateTable('blob_purges')
      .set({ done_at: clock.now(), lease_owner: null, lease_until: null })
      .where('blob_key', '=', key)
      .where('lease_owner', '=', owner)
      .execute();
    return 'removed';
  }

  return {
    /** One run: claims the due files (up to a batch) and removes those no row uses any more. */
    async run(): Promise<{ removed: number; kept: number }> {
      const now = clock.now();
      const due = await db
        .selectFrom('blob_purges')
        .select('blob_key')
        .where('done_at', 'is', null)
        .where('due_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('due_at')
        .limit(PURGE_BATCH)
        .execute();
      const counts = { removed: 0, kept: 0 };
      for (const { blob_key: key } of due) {
        if (!(await claim(key, now))) continue;
        counts[await work(key)]++;
      }
      return counts;
    },

    /** Whether the file at `key` (or the original of a rendition key) was removed by the lifecycle. */
    async isGone(key: string): Promise<boolean> {
      const original = key.startsWith(RENDITIONS_PREFIX) ? originalOfRendition(key) : key;
      if (original === undefined) return false;
      const row = await db
        .selectFrom('blob_purges')
        .select('done_at')
        .where('blob_key', '=', original)
        .executeTakeFirst();
      return row?.done_at != null;
    },
  };
}

export type BlobPurges = ReturnType<typeof createBlobPurges>;
