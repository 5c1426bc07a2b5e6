import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';

/** One page of a keyset listing: its items and the cursor of the next (null on the last). */
export interface KeysetPage<T> {
  items: T[];
  next: string | null;
}

/**
 * A listing read a page at a time by the admin API's cursors (the task log, the audit log): the
 * first page whenever `query` changes, the next on `loadMore`. An answer to a query the page has
 * since left is dropped.
 */
export function useKeysetPages<T>(
  query: string,
  fetchPage: (query: string, cursor: string | undefined, signal: AbortSignal) => Promise<KeysetPage<T>>,
) {
  const [items, setItems] = useState<T[]>();
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const current = useRef<AbortController>(undefined);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const load = useCallback(
    async (cursor: string | undefined) => {
      current.current?.abort();
      const controller = new AbortController();
      current.current = controller;
      setLoading(true);
      setError(undefined);
      try {
        const page = await fetchRef.current(query, cursor, controller.signal);
        if (controller.signal.aborted) return;
        setItems((before) => (cursor ? [...(before ?? []), ...page.items] : page.items));
        setNext(page.next);
      } catch (failure) {
        if (!controller.signal.aborted) setError(messageOf(failure));
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    },
    [query],
  );

  useEffect(() => {
    setItems(undefined);
    setNext(null);
    void load(undefined);
    return () => current.current?.abort();
  }, [load]);

  const loadMore = useCallback(() => {
    if (next) void load(next);
  }, [load, next]);

  return { items, more: next !== null, loading, error, loadMore };
}
