/** Smart collections (issue 37): saved searches of Saved works, kept on the server (/web/api). */
import { useCallback, useEffect, useState } from 'react';
import type {
  SmartCollection,
  SmartCollectionList,
  SmartFilters,
} from '../../../../src/base/contract/smart-collections';
import { api, messageOf } from '../../lib/api';
import { MODE_LABELS } from '../../lib/format';
import { type CurationFilter, curationFromUrl, curationToApi } from './curation-filters';
import { type SearchState, searchFromUrl, searchToApi } from './search';

export type { SmartCollection, SmartFilters };

const PATH = '/web/api/smart-collections';

/** The filters of Saved works' URL as a smart collection keeps them (empty ones left out). */
export function filtersOfPage(query: SearchState, curation: CurationFilter): SmartFilters {
  const filters: SmartFilters = {};
  if (query.q.trim()) filters.q = query.q.trim();
  if (query.model) filters.model = query.model;
  if (query.mode === 'text' || query.mode === 'edit' || query.mode === 'fusion') filters.mode = query.mode;
  if (query.from) filters.from = query.from;
  if (query.to) filters.to = query.to;
  if (curation.starred) filters.starred = true;
  if (curation.collection) filters.collection = curation.collection;
  return filters;
}

/** Saved works' URL of some filters (`collections`: the account's, so a deleted one is left out). */
export function worksUrlOf(filters: SmartFilters, collections?: ReadonlySet<string>): string {
  const params = new URLSearchParams();
  for (const name of ['q', 'model', 'mode', 'from', 'to'] as const) {
    const value = filters[name];
    if (value) params.set(name, value);
  }
  if (filters.starred) params.set('starred', '1');
  if (filters.collection && (collections === undefined || collections.has(filters.collection)))
    params.set('collection', filters.collection);
  const query = params.toString();
  return query ? `/works?${query}` : '/works';
}

/** Whether two sets of filters are the same search. */
export function sameFilters(a: SmartFilters, b: SmartFilters): boolean {
  return worksUrlOf(a) === worksUrlOf(b);
}

/** The filters in words: “lighthouse” · Edit · from 2026-01-01 · starred · in Coast. */
export function describeFilters(filters: SmartFilters, collectionName: (id: string) => string | undefined) {
  const parts: string[] = [];
  if (filters.q) parts.push(`“${filters.q}”`);
  if (filters.model) parts.push(filters.model);
  if (filters.mode) parts.push(MODE_LABELS[filters.mode] ?? filters.mode);
  if (filters.from && filters.to) parts.push(`${filters.from} to ${filters.to}`);
  else if (filters.from) parts.push(`from ${filters.from}`);
  else if (filters.to) parts.push(`until ${filters.to}`);
  if (filters.starred) parts.push('starred');
  if (filters.collection) parts.push(`in ${collectionName(filters.collection) ?? 'a deleted collection'}`);
  return parts.join(' · ');
}

/** The account's smart collections, with save, change and delete. */
export function useSmartCollections() {
  const [items, setItems] = useState<SmartCollection[]>([]);
  const [error, setError] = useState<string>();
  const reload = useCallback(async () => {
    try {
      setItems((await api.get<SmartCollectionList>(PATH)).items);
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  const one = (id: string) => `${PATH}/${encodeURIComponent(id)}`;
  return {
    items,
    error,
    async create(name: string, filters: SmartFilters): Promise<SmartCollection> {
      const created = await api.post<SmartCollection>(PATH, { name, filters });
      await reload();
      return created;
    },
    async update(id: string, change: { name?: string; filters?: SmartFilters }): Promise<void> {
      await api.patch(one(id), change);
      await reload();
    },
    async remove(id: string): Promise<void> {
      await api.delete(one(id));
      await reload();
    },
  };
}

export type SmartCollections = ReturnType<typeof useSmartCollections>;

/**
 * How many works each smart collection finds now (by id; absent until counted, or when its search
 * cannot be run): one `limit=1` page of Saved works each, read again when `items`, `collections` or
 * `changes` (a key of what else moves the counts: stars, deletions) change.
 */
export function useSmartCounts(
  items: readonly SmartCollection[],
  collections: readonly { id: string }[],
  changes: string,
): ReadonlyMap<string, number> {
  const [counts, setCounts] = useState<ReadonlyMap<string, number>>(new Map());
  useEffect(() => {
    void changes;
    let live = true;
    const known = new Set(collections.map((c) => c.id));
    void Promise.all(
      items.map(async (item): Promise<[string, number] | undefined> => {
        const params = new URLSearchParams(worksUrlOf(item.filters, known).split('?')[1] ?? '');
        const query = searchToApi(searchFromUrl(params)) + curationToApi(curationFromUrl(params));
        try {
          return [item.id, (await api.get<{ total: number }>(`/web/api/works?page=1&limit=1${query}`)).total];
        } catch {
          return undefined;
        }
      }),
    ).then((found) => {
      if (live) setCounts(new Map(found.filter((entry) => entry !== undefined)));
    });
    return () => {
      live = false;
    };
  }, [items, collections, changes]);
  return counts;
}
