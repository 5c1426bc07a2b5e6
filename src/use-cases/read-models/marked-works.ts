import type { HistoryPage } from '../../base/contract/generations.js';
import type { SearchFilters } from '../../base/contract/website/shared.js';
import type { CreationReads } from './creations.js';

/**
 * History pages and saved works with each work's marks (issue 30): whether the owner starred it and
 * which of its collections hold it. Marks belong to src/capabilities/curation; this read model puts them on the
 * creations read model's items, and checks a collection filter names one of the account's own.
 */

/** What the read model asks of the curation capability. */
export interface WorkMarksReader {
  marksOf(
    accountId: string,
    generationIds: string[],
  ): Promise<Map<string, { starred: boolean; collections: string[] }>>;
  /** Throws NotFound unless the collection is the account's: another's reads as a missing one. */
  assertCollection(accountId: string, collectionId: string): Promise<void>;
}

/** How many marked history pages are kept beside the pages they mark. */
type MarkedPages = WeakMap<HistoryPage, HistoryPage>;

export function createMarkedWorks(creations: CreationReads, marks: WorkMarksReader) {
  // A history page is kept by the creations read model while its account's history version stands;
  // a star or a collection change moves that version (in its own write), so the kept page is read
  // again and marked again. Marked once per kept page, the marked page is kept beside it.
  const marked: MarkedPages = new WeakMap();

  async function mark<T extends { id: string }>(accountId: string, items: T[]) {
    const found = await marks.marksOf(
      accountId,
      items.map((item) => item.id),
    );
    return items.map((item) => {
      const own = found.get(item.id);
      return { ...item, starred: own?.starred ?? false, collections: own?.collections ?? [] };
    });
  }

  const checkCollection = async (accountId: string, filters: SearchFilters | undefined) => {
    if (filters?.collection !== undefined) await marks.assertCollection(accountId, filters.collection);
  };

  return {
    ...creations,

    /** GET /history's page, its items marked; `starred` and `collection` filter it. */
    async historyPage(
      accountId: string,
      page: number,
      limit: number,
      filters?: SearchFilters,
    ): Promise<HistoryPage> {
      await checkCollection(accountId, filters);
      const plain = await creations.historyPage(accountId, page, limit, filters);
      const known = marked.get(plain);
      if (known !== undefined) return known;
      const fresh = { ...plain, items: await mark(accountId, plain.items) };
      marked.set(plain, fresh);
      return fresh;
    },

    /** One saved work by id, marked (a work's own link); undefined when the account has no such work. */
    async savedWork(accountId: string, generationId: string) {
      const plain = await creations.savedWork(accountId, generationId);
      return plain && (await mark(accountId, [plain]))[0];
    },

    /** Saved works' page, its items marked; `starred` and `collection` filter it. */
    async savedWorks(accountId: string, page: number, limit: number, filters: SearchFilters = {}) {
      await checkCollection(accountId, filters);
      const plain = await creations.savedWorks(accountId, page, limit, filters);
      return { ...plain, items: await mark(accountId, plain.items) };
    },
  };
}

export type MarkedWorks = ReturnType<typeof createMarkedWorks>;
