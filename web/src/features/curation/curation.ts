/** Stars, collections and ZIP downloads of saved works (issue 30), through /web/api. */
import { useCallback, useEffect, useState } from 'react';
import type { Collection, CollectionList } from '../../../../src/base/contract/curation';
import { api, messageOf } from '../../lib/api';

export type { Collection };

const work = (id: string) => encodeURIComponent(id);

/** Stars or unstars a saved work. */
export function setStar(workId: string, starred: boolean): Promise<void> {
  const path = `/web/api/works/${work(workId)}/star`;
  return starred ? api.put(path) : api.delete(path);
}

/** Adds works to (or takes them out of) a collection, a few requests at a time. */
export async function setMembers(collectionId: string, workIds: string[], member: boolean): Promise<void> {
  const queue = [...workIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const path = `/web/api/collections/${encodeURIComponent(collectionId)}/items/${work(id)}`;
      await (member ? api.put(path) : api.delete(path));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** The link of a selection's ZIP: a plain GET, so the browser saves the stream as it arrives. */
export function zipUrl(selection: { works?: string[]; assets?: string[] }): string {
  const params = new URLSearchParams();
  if (selection.works?.length) params.set('works', selection.works.join(','));
  if (selection.assets?.length) params.set('assets', selection.assets.join(','));
  return `/web/api/downloads/zip?${params.toString()}`;
}

/** The account's collections, with create, rename and delete; `reload` after other changes. */
export function useCollections() {
  const [collections, setCollections] = useState<Collection[]>([]);
  const [error, setError] = useState<string>();
  const reload = useCallback(async () => {
    try {
      setCollections((await api.get<CollectionList>('/web/api/collections')).items);
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return {
    collections,
    error,
    reload,
    async create(name: string): Promise<Collection> {
      const created = await api.post<Collection>('/web/api/collections', { name });
      await reload();
      return created;
    },
    async rename(id: string, name: string): Promise<void> {
      await api.patch(`/web/api/collections/${encodeURIComponent(id)}`, { name });
      await reload();
    },
    async remove(id: string): Promise<void> {
      await api.delete(`/web/api/collections/${encodeURIComponent(id)}`);
      await reload();
    },
  };
}

export type Collections = ReturnType<typeof useCollections>;

/** Deletes saved works, a few at a time; `keepalive` when the page is going away. */
export async function deleteWorks(workIds: string[], options: { keepalive: boolean }): Promise<void> {
  const queue = [...workIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const path = `/web/api/works/${work(id)}`;
      if (!options.keepalive) await api.delete(path);
      else await fetch(path, { method: 'DELETE', credentials: 'same-origin', keepalive: true });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}
