import { defaultRangeExtractor, type Range, type Virtualizer } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { movedAScreen } from './grid-window';
import { type GridRow, isPlaceholder, type Placeholder } from './virtual-rows';

/**
 * The card holding focus keeps its row rendered wherever the window goes (scrolling away and back):
 * `focusedKey` is kept by useFocusedCard, `rangeExtractor` adds its row to the window's.
 */
export function useFocusKeptRow(indexOfKey: Map<string, number>, rowOf: Int32Array) {
  const focusedKey = useRef<string>(undefined);
  const focusedRow = () => {
    const index = focusedKey.current === undefined ? undefined : indexOfKey.get(focusedKey.current);
    return index === undefined ? -1 : (rowOf[index] ?? -1);
  };
  const focusedRowRef = useRef(focusedRow);
  focusedRowRef.current = focusedRow;
  const rangeExtractor = useCallback((range: Range) => {
    const indexes = defaultRangeExtractor(range);
    const focus = focusedRowRef.current();
    if (focus >= 0 && focus < range.count && !indexes.includes(focus)) indexes.push(focus);
    return indexes.sort((a, b) => a - b);
  }, []);
  return { focusedKey, rangeExtractor };
}

/** The first row of cards in view, its first item and how far below the viewport's top it starts. */
export interface Anchor {
  key: string;
  index: number;
  offset: number;
}

/** Follows the anchor as the window moves (the virtualiser's `onChange`). */
export function useAnchorTracking<T>(
  rowsRef: RefObject<GridRow<T>[]>,
  items: readonly (T | Placeholder)[],
  keyOf: (item: T | Placeholder) => string,
) {
  const anchor = useRef<Anchor>(undefined);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const onChange = useCallback(
    (instance: {
      scrollOffset: number | null;
      getVirtualItems: () => { index: number; start: number; end: number }[];
    }) => {
      const offset = instance.scrollOffset ?? 0;
      for (const virtual of instance.getVirtualItems()) {
        const row = rowsRef.current[virtual.index];
        const item = row?.kind === 'cards' ? itemsRef.current[row.first] : undefined;
        if (virtual.end <= offset || !row || row.kind !== 'cards' || item === undefined) continue;
        anchor.current = { key: keyOf(item), index: row.first, offset: virtual.start - offset };
        return;
      }
    },
    [keyOf, rowsRef],
  );
  return { anchor, onChange };
}

/**
 * Rows changed (a page arrived, the day headings it brings): the anchor row stays where it stood on
 * the screen. Another list (`listId`) starts from the top of the page instead (the page's first list
 * stays where the page is).
 */
export function useKeepAnchor<T>({
  anchor,
  rows,
  items,
  indexOfKey,
  rowOf,
  virtualizer,
  listId,
}: {
  anchor: RefObject<Anchor | undefined>;
  rows: GridRow<T>[];
  items: readonly (T | Placeholder)[];
  indexOfKey: Map<string, number>;
  rowOf: Int32Array;
  virtualizer: Virtualizer<Window, Element>;
  listId: number | undefined;
}) {
  const shownList = useRef(listId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the rows changing is what this follows.
  useLayoutEffect(() => {
    const was = anchor.current;
    if (shownList.current !== listId) {
      const later = Boolean(shownList.current);
      shownList.current = listId;
      anchor.current = undefined;
      if (later && window.scrollY > 0) window.scrollTo({ top: 0, behavior: 'instant' });
      return;
    }
    if (!was || items.length === 0) return;
    const index = indexOfKey.get(was.key) ?? Math.min(was.index, items.length - 1);
    const row = rowOf[index];
    const now = row === undefined ? undefined : virtualizer.measurementsCache[row]?.start;
    if (now === undefined) return;
    const delta = now - was.offset - window.scrollY;
    if (Math.abs(delta) >= 1) window.scrollBy({ top: delta, behavior: 'instant' });
  }, [rows]);
}

/**
 * A flick (or a drag of the scrollbar): more than a screen since the last frame, two frames in a row,
 * focus not in the grid. Rows that come into the window meanwhile are drawn as placeholders of their
 * size, their cards once it slows (the virtualiser renders again when the scroll stops): a fast flick
 * mounts no cards per frame. A single jump (focus moving a card into view, End) draws its cards at
 * once, and so does any move while focus is in the grid (Tab must find the next card).
 */
export function useFlick(grid: RefObject<HTMLDivElement | null>, offset: number): boolean {
  const lastOffset = useRef(0);
  const movedBefore = useRef(false);
  const moved = movedAScreen(offset, lastOffset.current, window.innerHeight);
  const fast = moved && movedBefore.current && !grid.current?.contains(document.activeElement);
  lastOffset.current = offset;
  movedBefore.current = moved;
  return fast;
}

/** Says which positions the window shows (first to last, inclusive) whenever they, or the items, change. */
export function useReportRange(
  onRange: ((first: number, last: number) => void) | undefined,
  start: number,
  end: number,
  items: readonly unknown[],
) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: a page read (new items) is a reason to report again.
  useEffect(() => {
    if (end > start) onRange?.(start, end - 1);
  }, [onRange, start, end, items]);
}

/** Keeps `focused` on the key of the card holding focus inside the grid (undefined when none does). */
export function useFocusedCard<T>(
  grid: RefObject<HTMLDivElement | null>,
  rows: RefObject<GridRow<T>[]>,
  itemKey: (item: T) => string,
  focused: RefObject<string | undefined>,
) {
  useEffect(() => {
    const element = grid.current;
    if (!element) return;
    const onFocus = (event: FocusEvent) => {
      const target = event.target instanceof HTMLElement ? event.target : null;
      const row = target?.closest<HTMLElement>('[data-index]');
      const at = row ? rows.current[Number(row.dataset.index)] : undefined;
      if (!row || !target || at?.kind !== 'cards') return;
      const slot = Array.from(row.children).findIndex((child) => child.contains(target));
      const card = at.items[Math.max(0, slot)];
      focused.current = card === undefined || isPlaceholder(card) ? undefined : itemKey(card);
    };
    const onBlur = (event: FocusEvent) => {
      if (!(event.relatedTarget instanceof Node) || !element.contains(event.relatedTarget))
        focused.current = undefined;
    };
    element.addEventListener('focusin', onFocus);
    element.addEventListener('focusout', onBlur);
    return () => {
      element.removeEventListener('focusin', onFocus);
      element.removeEventListener('focusout', onBlur);
    };
  }, [grid, rows, itemKey, focused]);
}
