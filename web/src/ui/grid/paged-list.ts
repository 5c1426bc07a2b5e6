import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';
import {
  readShifted,
  removedBefore,
  type Segment,
  segmentsOf,
  startsOf,
  unreadBetween,
  withPage,
} from './page-slots';
import { isPlaceholder, type Placeholder } from './virtual-rows';

/** A page of a list as the routes answer it (`page`/`limit` offsets and the list's total). */
export interface PageAnswer<T> {
  items: T[];
  total: number;
}

/** After the window last moved far (a flick, a drag of the scrollbar), this long before its pages are asked for. */
const SETTLE_MS = 120;

/**
 * A list as tall as its total, read page by page where it is looked at (Saved works, the Library).
 * The first page of each sequence is read at once (it brings the sequence's total); every other
 * page is a run of placeholders until the grid's window shows it (`ensure`): then that page is read,
 * not the ones between. While the window moves far each frame, nothing is asked for; once it
 * settles (or moves a little at a time), the pages it shows are. `keep` leaves items of a page out
 * (the pinned starred works, in the sequence of all works after them).
 */
export function usePagedList<T>({
  sequences,
  pageSize,
  read,
  keep,
  ready = true,
}: {
  sequences: number;
  pageSize: number;
  /** Reads page `page` (from 1) of sequence `seq`; a new function starts the list afresh. */
  read: (seq: number, page: number) => Promise<PageAnswer<T>>;
  keep?: ((item: T, seq: number) => boolean) | undefined;
  ready?: boolean;
}) {
  const state = usePagedState<T>(keep);
  const { segments, totals } = state;
  useFirstPages(state, read, sequences, pageSize, ready);
  const loadPage = usePageLoader(state, read, pageSize);
  const slots = useMemo(() => segments.flatMap((segment) => segment.slots), [segments]);
  const items = useMemo(() => slots.filter((slot): slot is T => !isPlaceholder(slot)), [slots]);
  const { ensure, loadWanted } = useWindowedReads(state.latest, loadPage);

  /** The first page not read yet (the Load more button, the lightbox walking past the last item read). */
  const loadNext = useCallback(() => {
    const next = state.latest.current.segments.find((s) => !s.read);
    if (next) loadPage(next.seq, next.page);
  }, [loadPage, state.latest]);

  /** Changes items where they stand (`change` returns the item, a new one, or null to take it out). */
  const { setSegments } = state;
  const update = useCallback(
    (change: (item: T) => T | null) => setSegments((list) => changedSegments(list, change)),
    [setSegments],
  );
  const removed = useMemo(() => segments.reduce((sum, s) => sum + (s.removed ?? 0), 0), [segments]);

  const total = totals === undefined ? undefined : Math.max(0, (totals.at(-1) ?? 0) - removed);
  return {
    /** The whole list: items read, placeholders where pages are not. */
    slots: slots as readonly (T | Placeholder)[],
    /** The items read, in the list's order (the lightbox walks these). */
    items,
    listId: state.listId,
    /** How many items the list has (the last sequence's total, less those taken out). */
    total,
    loading: state.pending > 0,
    error: state.error,
    hasMore: segments.some((segment) => !segment.read),
    ensure,
    loadNext,
    /** Asks again for the pages the window shows (after an error). */
    retry: loadWanted,
    update,
  };
}

/** The list's state: its segments, the sequences' totals, the reads under way, the last error. */
function usePagedState<T>(keep: ((item: T, seq: number) => boolean) | undefined) {
  const [segments, setSegments] = useState<Segment<T>[]>([]);
  const [totals, setTotals] = useState<number[]>();
  const [pending, setPending] = useState(0);
  const [error, setError] = useState<string>();
  /** Which list this is: a new one (another search, filter or order) each time it starts afresh. */
  const [listId, setListId] = useState(0);
  /** Bumped when the list starts afresh: answers for an older list are dropped. */
  const generation = useRef(0);
  const inFlight = useRef(new Set<string>());
  const keepRef = useRef(keep);
  keepRef.current = keep;
  const kept = useCallback(
    (items: T[], seq: number) => items.filter((item) => keepRef.current?.(item, seq) ?? true),
    [],
  );
  const latest = useRef({ segments, starts: startsOf(segments) });
  latest.current = useMemo(() => ({ segments, starts: startsOf(segments) }), [segments]);
  return {
    segments,
    setSegments,
    totals,
    setTotals,
    pending,
    setPending,
    error,
    setError,
    listId,
    setListId,
    generation,
    inFlight,
    kept,
    latest,
  };
}
type PagedState<T> = ReturnType<typeof usePagedState<T>>;

/** Reads the first page of each sequence when the list starts (afresh): they bring the totals. */
function useFirstPages<T>(
  state: PagedState<T>,
  read: (seq: number, page: number) => Promise<PageAnswer<T>>,
  sequences: number,
  pageSize: number,
  ready: boolean,
) {
  const { generation, inFlight, kept, setPending, setError, setSegments, setTotals, setListId } = state;
  useEffect(() => {
    if (!ready) return;
    const mine = ++generation.current;
    inFlight.current.clear();
    setPending(1);
    setError(undefined);
    Promise.all(Array.from({ length: sequences }, (_, seq) => read(seq, 1)))
      .then((firsts) => {
        if (mine !== generation.current) return;
        let next = segmentsOf<T>(
          firsts.map((first) => first.total),
          pageSize,
        );
        firsts.forEach((first, seq) => {
          const at = next.findIndex((s) => s.seq === seq && s.page === 1);
          if (at >= 0) next = withPage(next, at, kept(first.items, seq));
        });
        setSegments(next);
        setTotals(firsts.map((first) => first.total));
        setListId(mine);
      })
      .catch((failure: unknown) => {
        if (mine === generation.current) setError(messageOf(failure));
      })
      .finally(() => {
        if (mine === generation.current) setPending(0);
      });
  }, [
    read,
    sequences,
    pageSize,
    ready,
    kept,
    generation,
    inFlight,
    setPending,
    setError,
    setSegments,
    setTotals,
    setListId,
  ]);
}

/** Reads one page (once at a time), shifted by the items taken out before it; answers for an older list are dropped. */
function usePageLoader<T>(
  state: PagedState<T>,
  read: (seq: number, page: number) => Promise<PageAnswer<T>>,
  pageSize: number,
) {
  const { generation, inFlight, kept, latest, setPending, setError, setSegments } = state;
  return useCallback(
    (seq: number, page: number) => {
      const id = `${seq}:${page}`;
      if (inFlight.current.has(id)) return;
      inFlight.current.add(id);
      const mine = generation.current;
      setPending((n) => n + 1);
      const { segments: list } = latest.current;
      const length = list.find((s) => s.seq === seq && s.page === page)?.slots.length ?? pageSize;
      readShifted(read, seq, page, pageSize, length, removedBefore(list, seq, page))
        .then((answer) => {
          if (mine !== generation.current) return;
          setError(undefined);
          setSegments((list) => {
            const at = list.findIndex((s) => s.seq === seq && s.page === page);
            const segment = list[at];
            return !segment || segment.read ? list : withPage(list, at, kept(answer.items, seq));
          });
        })
        .catch((failure: unknown) => {
          if (mine === generation.current) setError(messageOf(failure));
        })
        .finally(() => {
          inFlight.current.delete(id);
          if (mine === generation.current) setPending((n) => Math.max(0, n - 1));
        });
    },
    [read, kept, pageSize, generation, inFlight, latest, setPending, setError, setSegments],
  );
}

/**
 * The pages the window shows, read once it settles: `ensure` is told the positions shown (first to
 * last, inclusive) as the window moves; `loadWanted` reads the unread pages among them.
 */
function useWindowedReads<T>(
  latest: RefObject<{ segments: Segment<T>[]; starts: Int32Array }>,
  loadPage: (seq: number, page: number) => void,
) {
  const wanted = useRef<[number, number]>([0, -1]);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const loadWanted = useCallback(() => {
    timer.current = undefined;
    const { segments: list, starts } = latest.current;
    for (const at of unreadBetween(list, starts, ...wanted.current)) {
      const segment = list[at];
      if (segment) loadPage(segment.seq, segment.page);
    }
  }, [loadPage, latest]);
  const ensure = useCallback(
    (first: number, last: number) => {
      const [was] = wanted.current;
      wanted.current = [first, last];
      // Moved more than a quarter of the window since the last report (about a screen on a wide
      // grid): still flying, wait for it. A steady scroll moves a row at a time and reads as it goes.
      const far = Math.abs(first - was) > Math.max(1, (last - first) / 4);
      if (timer.current !== undefined && !far) return;
      clearTimeout(timer.current);
      timer.current = setTimeout(loadWanted, SETTLE_MS);
    },
    [loadWanted],
  );
  useEffect(() => () => clearTimeout(timer.current), []);
  return { ensure, loadWanted };
}

/** The segments with `change` applied to each item read (null takes it out, counted as removed). */
function changedSegments<T>(list: Segment<T>[], change: (item: T) => T | null): Segment<T>[] {
  return list.map((segment) => {
    if (!segment.read) return segment;
    const next = (segment.slots as T[]).flatMap((item) => {
      const changed = change(item);
      return changed === null ? [] : [changed];
    });
    const gone = segment.slots.length - next.length;
    const same = gone === 0 && next.every((item, i) => item === segment.slots[i]);
    return same ? segment : { ...segment, slots: next, removed: (segment.removed ?? 0) + gone };
  });
}
