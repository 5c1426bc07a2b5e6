import type { Asset } from '../../base/contract/assets.js';
import type { SearchFilters } from '../../base/contract/website/shared.js';
import type { AssetKind } from '../../base/domain/asset-kinds.js';
import { toAssetBase } from '../../capabilities/assets/index.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import { filterConditions, hasFilters, queryWords } from '../generations/index.js';

/**
 * The library read model: the website's asset library, where assets meet the generations their
 * results came from (for the prompt and the search filters). Owners: `assets` belongs to
 * src/capabilities/assets, `generations` to src/use-cases/generations; each writes its own table alone, and this module
 * only reads them together.
 */

/** An asset of the website's library, with the prompt of the generation a result came from (for alt text). */
export interface LibraryAsset extends Omit<Asset, 'sha256' | 'taskId'> {
  prompt: string | null;
  /** An upload's file name as sent; null for results and uploads stored before names were kept. */
  name: string | null;
}

export function createLibraryReads(db: Db) {
  return {
    /**
     * One page of the account's library, newest first: uploads, and results of the generations
     * still in saved works (deleting a work takes its images out of the library; the files
     * themselves leave storage at the next lifecycle run, docs/operations.md), each with its prompt.
     */
    async libraryPage(
      accountId: string,
      options: { page: number; limit: number; kind?: AssetKind; filters?: SearchFilters },
    ) {
      const filters = options.filters ?? {};
      let base = db
        .selectFrom('assets')
        .leftJoin('generations', 'generations.id', 'assets.generation_id')
        .where('assets.account_id', '=', accountId)
        .where((eb) =>
          eb.or([eb('assets.generation_id', 'is', null), eb('generations.deleted_at', 'is', null)]),
        );
      if (options.kind) base = base.where('assets.kind', '=', options.kind);
      // Model and mode belong to results (an upload has none, so those filters leave uploads out);
      // the dates are the asset's. The walk is assets_account_created, one account's rows.
      // `q` finds results by their prompt (the full-text index) and uploads by their file name (each
      // word within the name, case-insensitive: "cat" finds "Cat on a mat.png").
      const { q, ...others } = filters;
      if (hasFilters(others))
        base = base.where((eb) => eb.and(filterConditions(others, dialectOf(db), 'assets.created_at')));
      if (q !== undefined) {
        const [byPrompt] = filterConditions({ q }, dialectOf(db), 'assets.created_at');
        const words = queryWords(q);
        base = base.where((eb) =>
          eb.or([
            ...(byPrompt ? [byPrompt] : []),
            ...(words.length === 0
              ? []
              : [
                  eb.and([
                    eb('assets.kind', '=', 'upload'),
                    ...words.map((word) => eb(eb.fn('lower', ['assets.original_name']), 'like', `%${word}%`)),
                  ]),
                ]),
          ]),
        );
      }
      const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      const rows = await base
        .select([
          'assets.id',
          'assets.kind',
          'assets.url',
          'assets.content_type',
          'assets.bytes',
          'assets.width',
          'assets.height',
          'assets.generation_id',
          'assets.created_at',
          'generations.prompt',
          'assets.original_name',
        ])
        .orderBy('assets.created_at', 'desc')
        .orderBy('assets.id', 'desc')
        .limit(options.limit)
        .offset((options.page - 1) * options.limit)
        .execute();
      const items: LibraryAsset[] = rows.map((row) => ({
        ...toAssetBase(row),
        prompt: row.prompt ?? null,
        name: row.original_name,
      }));
      return { items, total: Number(totalRow?.n ?? 0) };
    },
  };
}

export type LibraryReads = ReturnType<typeof createLibraryReads>;
