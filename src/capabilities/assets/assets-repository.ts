import { createHash } from 'node:crypto';
import type { Asset } from '../../base/contract/assets.js';
import type { AssetKind } from '../../base/domain/asset-kinds.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { enqueueBlobPurges } from '../../infra/blobs/blob-purges.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { AssetsTable } from '../../infra/store/schema/assets.js';

// The wire shape is the contract's; the repository maps its rows onto it.
export type { Asset };

/** The columns every asset answer is made of (an `Asset` adds sha256 and taskId). */
export type AssetColumns = Pick<
  AssetsTable,
  'id' | 'kind' | 'url' | 'content_type' | 'bytes' | 'width' | 'height' | 'generation_id' | 'created_at'
>;

export function toAssetBase(row: AssetColumns): Omit<Asset, 'sha256' | 'taskId'> {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    contentType: row.content_type,
    bytes: Number(row.bytes),
    width: row.width,
    height: row.height,
    generationId: row.generation_id,
    createdAt: Number(row.created_at),
  };
}

function toAsset(row: AssetsTable): Asset {
  return { ...toAssetBase(row), sha256: row.sha256, taskId: row.task_id };
}

/** Store queries for the asset library: every upload and every result of an account. */
/** The columns of a result's asset row, in the order its compiled insert binds them. */
const RESULT_COLUMNS = [
  'id',
  'account_id',
  'kind',
  'blob_key',
  'url',
  'content_type',
  'bytes',
  'width',
  'height',
  'sha256',
  'generation_id',
  'task_id',
  'created_at',
] as const;
type ResultRow = Pick<AssetsTable, (typeof RESULT_COLUMNS)[number]>;

export function createAssetsRepository({ db, clock, ids }: { db: Db; clock: Clock; ids: IdGenerator }) {
  return {
    /** Records an upload; the same bytes uploaded again by the same account reuse one record. */
    insertUpload: (input: NewUpload): Promise<Asset> => insertUpload(db, clock, ids, input),

    /**
     * Records a task's result in the caller's transaction (the task's final write: the result's
     * asset commits with the task that reads completed, or neither does); idempotent per task.
     */
    recordResult: resultRecorder(db, clock, ids),

    /** One page of an account's assets, newest first, optionally of one kind. */
    page: (accountId: string, options: { page: number; limit: number; kind?: AssetKind }) =>
      assetsPage(db, accountId, options),

    /**
     * Deletes one of the account's uploads from its library (DELETE /api/v1/assets/{id}). The record
     * goes at once; the file and its renditions at the next housekeeping run, unless another row
     * still uses them: upload files are content-addressed (the same bytes are one file, whoever sent
     * them), and works that used it as a reference keep it by its key (they still show it and can be
     * re-run) until the last of them goes. Another account's id, or none, is NotFound; a result
     * belongs to its work (delete the work instead), a Conflict.
     */
    deleteUpload: (accountId: string, assetId: string): Promise<void> =>
      deleteUpload(db, clock, accountId, assetId),

    /**
     * The task of the account's newest result whose bytes hash to `sha256` (hex), if any: how an
     * image sent back as a data URL is recognised as one of the account's works.
     */
    async resultTaskBySha256(accountId: string, sha256: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('assets')
        .select('task_id')
        .where('account_id', '=', accountId)
        .where('kind', '=', 'result')
        .where('sha256', '=', sha256)
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      return row?.task_id ?? undefined;
    },

    /** The account's asset stored under a blob key, if the account owns one. */
    async findByBlobKey(accountId: string, blobKey: string): Promise<Asset | undefined> {
      const row = await db
        .selectFrom('assets')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('blob_key', '=', blobKey)
        .executeTakeFirst();
      return row && toAsset(row);
    },
  };
}

/** An upload to record. */
export interface NewUpload {
  accountId: string;
  blobKey: string;
  url: string;
  contentType: string;
  bytes: number;
  width: number;
  height: number;
  sha256: string;
  /** The file's name as sent (a direct upload's, a URL's last segment), when it had one. */
  originalName?: string | undefined;
}

/** A task's result to record. */
export interface NewResult {
  accountId: string;
  generationId: string;
  taskId: string;
  blobKey: string;
  url: string;
  contentType: string;
  bytes: Buffer;
  width: number;
  height: number;
}

/** Records an upload (see `insertUpload` on the repository). */
async function insertUpload(db: Db, clock: Clock, ids: IdGenerator, input: NewUpload): Promise<Asset> {
  const existing = await db
    .selectFrom('assets')
    .selectAll()
    .where('account_id', '=', input.accountId)
    .where('kind', '=', 'upload')
    .where('sha256', '=', input.sha256)
    .executeTakeFirst();
  if (existing) {
    // The same bytes sent again under a name: an upload stored without one takes it.
    if (existing.original_name === null && input.originalName)
      await db
        .updateTable('assets')
        .set({ original_name: input.originalName })
        .where('id', '=', existing.id)
        .execute();
    return toAsset(existing);
  }
  const row: AssetsTable = {
    id: ids.next('ast'),
    account_id: input.accountId,
    kind: 'upload',
    blob_key: input.blobKey,
    url: input.url,
    content_type: input.contentType,
    bytes: input.bytes,
    width: input.width,
    height: input.height,
    sha256: input.sha256,
    generation_id: null,
    task_id: null,
    created_at: clock.now(),
    original_name: input.originalName ?? null,
  };
  await db.insertInto('assets').values(row).execute();
  return toAsset(row);
}

/**
 * The recording of results. Every result of the engine is recorded here, in the transaction of its
 * task's final write (one commit for both, not one each): its two queries compiled once.
 */
function resultRecorder(
  db: Db,
  clock: Clock,
  ids: IdGenerator,
): (executor: Db, input: NewResult) => Promise<void> {
  const resultOfTask = compiledOnce(1, (taskId: string) =>
    db.selectFrom('assets').select('id').where('task_id', '=', taskId),
  );
  const insertResultRow = compiledOnce(RESULT_COLUMNS.length, (...values: unknown[]) =>
    db
      .insertInto('assets')
      .values(Object.fromEntries(RESULT_COLUMNS.map((column, i) => [column, values[i]])) as ResultRow),
  );
  return async (executor, input) => {
    // A task's result is recorded once, whichever attempt stored it first.
    if ((await executor.executeQuery(resultOfTask(input.taskId))).rows.length > 0) return;
    const row: ResultRow = {
      id: ids.next('ast'),
      account_id: input.accountId,
      kind: 'result',
      blob_key: input.blobKey,
      url: input.url,
      content_type: input.contentType,
      bytes: input.bytes.length,
      width: input.width,
      height: input.height,
      sha256: createHash('sha256').update(input.bytes).digest('hex'),
      generation_id: input.generationId,
      task_id: input.taskId,
      created_at: clock.now(),
    };
    await executor.executeQuery(insertResultRow(...RESULT_COLUMNS.map((column) => row[column])));
  };
}

/** One page of an account's assets, newest first, optionally of one kind. */
async function assetsPage(
  db: Db,
  accountId: string,
  options: { page: number; limit: number; kind?: AssetKind },
) {
  let base = db.selectFrom('assets').where('account_id', '=', accountId);
  if (options.kind) base = base.where('kind', '=', options.kind);
  const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset((options.page - 1) * options.limit)
    .execute();
  return { items: rows.map(toAsset), total: Number(totalRow?.n ?? 0) };
}

/** Deletes one of the account's uploads (see `deleteUpload` on the repository). */
async function deleteUpload(db: Db, clock: Clock, accountId: string, assetId: string): Promise<void> {
  const row = await db
    .selectFrom('assets')
    .select(['kind', 'generation_id', 'blob_key'])
    .where('id', '=', assetId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new NotFound('Asset not found');
  if (row.kind !== 'upload')
    throw new Conflict(
      `This asset is a result of work ${row.generation_id ?? ''}: delete the work to take it out of the library`,
    );
  // The file goes with the last row that uses it (another account's upload of the same bytes, a
  // work that used it as a reference keep it): on the to-do list in the row delete's transaction.
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('assets').where('id', '=', assetId).where('account_id', '=', accountId).execute();
    await enqueueBlobPurges(trx, { keys: [row.blob_key], accountId, reason: 'deleted', dueAt: clock.now() });
  });
}

export type AssetsRepository = ReturnType<typeof createAssetsRepository>;
