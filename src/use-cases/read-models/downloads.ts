import { NotFound } from '../../base/domain/errors.js';
import type { Db } from '../../infra/store/database.js';

/**
 * The files of a download selection (issue 30's ZIP): assets of the account — each result of the
 * selected works, and the selected assets themselves — with the generation each result came from
 * (prompt, model, source). Owners: `assets` belongs to src/capabilities/assets and `generations` to
 * src/use-cases/generations; this read model only reads them together.
 */

/** One file to download: its blob and what metadata.json says of it. */
export interface DownloadFile {
  assetId: string;
  blobKey: string;
  url: string;
  contentType: string;
  bytes: number;
  width: number;
  height: number;
  createdAt: number;
  generationId: string | null;
  prompt: string | null;
  model: string | null;
  source: 'api' | 'web' | 'upload';
  /** What the work was asked with (null for uploads): enough to make it again. */
  request: {
    mode: string;
    aspect: string;
    /** The request named no aspect: the result keeps its reference's shape (`aspect` is the nearest ratio). */
    aspectFromReference: boolean;
    imageSize: string;
    imageCount: number;
    references: string[];
  } | null;
  /** An upload's file name as sent, when it was kept. */
  originalName: string | null;
}

export function createDownloadReads(db: Db) {
  return {
    /**
     * The files of `generationIds` (each work's results, in task order) then of `assetIds`, in the
     * order asked, each once. Any id that is not a work or asset the account can see — another
     * account's included — makes the whole selection NotFound, naming it.
     */
    filesOf: (accountId: string, selection: Selection): Promise<DownloadFile[]> =>
      filesOf(db, accountId, selection),

    /**
     * One page of every file of the account (its works' results and its uploads) as its library
     * shows them, oldest first, after `after` (a page's last file) and stored at or before `until`.
     */
    async page(accountId: string, after: PageCursor | null, until: number, limit: number) {
      let query = filesQuery(db, accountId).where('assets.created_at', '<=', until);
      if (after)
        query = query.where((eb) =>
          eb.or([
            eb('assets.created_at', '>', after.createdAt),
            eb.and([eb('assets.created_at', '=', after.createdAt), eb('assets.id', '>', after.assetId)]),
          ]),
        );
      const rows = await query.orderBy('assets.created_at').orderBy('assets.id').limit(limit).execute();
      return rows.map(toDownloadFile);
    },
  };
}

/** Where a page of an account's files begins: after this file (oldest first, then by id). */
export interface PageCursor {
  createdAt: number;
  assetId: string;
}

/** What a download asks for: works (their results) and assets, by id. */
interface Selection {
  generationIds: string[];
  assetIds: string[];
}

/** The account's assets with the generation each came from, as the library shows them. */
function filesQuery(db: Db, accountId: string) {
  return (
    db
      .selectFrom('assets')
      .leftJoin('generations', 'generations.id', 'assets.generation_id')
      .select([
        'assets.id',
        'assets.blob_key',
        'assets.url',
        'assets.content_type',
        'assets.bytes',
        'assets.width',
        'assets.height',
        'assets.created_at',
        'assets.generation_id',
        'assets.original_name',
        'assets.kind',
        'generations.prompt',
        'generations.model',
        'generations.source',
        'generations.mode',
        'generations.aspect',
        'generations.aspect_from_reference',
        'generations.image_size',
        'generations.image_count',
        'generations.refs_json',
      ])
      .where('assets.account_id', '=', accountId)
      // As the library: results of deleted works are gone from the account's view.
      .where((eb) =>
        eb.or([eb('assets.generation_id', 'is', null), eb('generations.deleted_at', 'is', null)]),
      )
  );
}

type FileRow = Awaited<ReturnType<ReturnType<typeof filesQuery>['execute']>>[number];

/** See `filesOf` on the download reads. */
async function filesOf(db: Db, accountId: string, selection: Selection): Promise<DownloadFile[]> {
  const { generationIds, assetIds } = selection;
  const [ofWorks, works, ofAssets] = await Promise.all([
    generationIds.length === 0
      ? []
      : filesQuery(db, accountId)
          .where('assets.generation_id', 'in', generationIds)
          .where('assets.kind', '=', 'result')
          .orderBy('assets.created_at')
          .orderBy('assets.id')
          .execute(),
    generationIds.length === 0
      ? []
      : db
          .selectFrom('generations')
          .select('id')
          .where('account_id', '=', accountId)
          .where('rejected', '=', 0)
          .where('deleted_at', 'is', null)
          .where('id', 'in', generationIds)
          .execute(),
    assetIds.length === 0 ? [] : filesQuery(db, accountId).where('assets.id', 'in', assetIds).execute(),
  ]);
  const knownWorks = new Set(works.map((row) => row.id));
  const missingWork = generationIds.find((id) => !knownWorks.has(id));
  if (missingWork !== undefined) throw new NotFound(`No such work: ${missingWork}`);
  const assetsById = new Map(ofAssets.map((row) => [row.id, row]));
  const missingAsset = assetIds.find((id) => !assetsById.has(id));
  if (missingAsset !== undefined) throw new NotFound(`No such asset: ${missingAsset}`);
  const workOrder = new Map(generationIds.map((id, index) => [id, index]));
  const ordered = [
    ...[...ofWorks].sort(
      (a, b) => (workOrder.get(a.generation_id ?? '') ?? 0) - (workOrder.get(b.generation_id ?? '') ?? 0),
    ),
    ...assetIds.flatMap((id) => assetsById.get(id) ?? []),
  ];
  const seen = new Set<string>();
  return ordered.flatMap((row) => {
    if (seen.has(row.id)) return [];
    seen.add(row.id);
    return [toDownloadFile(row)];
  });
}

/** What metadata.json says of one file. */
function toDownloadFile(row: FileRow): DownloadFile {
  return {
    assetId: row.id,
    blobKey: row.blob_key,
    url: row.url,
    contentType: row.content_type,
    bytes: Number(row.bytes),
    width: row.width,
    height: row.height,
    createdAt: Number(row.created_at),
    generationId: row.generation_id,
    prompt: row.prompt ?? null,
    model: row.model ?? null,
    source: row.kind === 'upload' ? 'upload' : row.source === 'web' ? 'web' : 'api',
    request:
      row.kind === 'upload' || row.mode === null || row.mode === undefined
        ? null
        : {
            mode: row.mode,
            aspect: row.aspect ?? '',
            aspectFromReference: Number(row.aspect_from_reference ?? 0) === 1,
            imageSize: row.image_size ?? '',
            imageCount: Number(row.image_count ?? 1),
            references: JSON.parse(row.refs_json ?? '[]') as string[],
          },
    originalName: row.original_name,
  };
}

export type DownloadReads = ReturnType<typeof createDownloadReads>;
