import { defaultRangeExtractor, type Range, useWindowVirtualizer } from '@tanstack/react-virtual';
import {
  memo,
  type ReactNode,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useGridBox, useReveal } from './virtual-grid-box';
import {
  buildRows,
  columnsFor,
  type Density,
  type GalleryKind,
  GRID_GAP,
  type GridRow,
  isPlaceholder,
  PHONE_WIDTH,
  type Placeholder,
  rowHeight,
} from './virtual-rows';

/**
 * Beyond the viewport on each side, about this many pixels of rows stay rendered (so Tab from the
 * last visible card reaches the next one, and a short list is rendered whole)…
 */
const MARGIN_PX = 1600;
/** …but at most this many cards' worth of rows (and at least two rows): a compact grid keeps a small DOM. */
const CARDS_BEYOND = 16;
const HEADING_HEIGHT = 52;

/**
 * A gallery of many items that renders only the rows near the viewport, windowed by TanStack
 * Virtual over the page's own scroll: each row is measured once rendered (cards of different
 * heights just make rows of different heights), so Saved works and the Library keep a small DOM at
 * 5,000 items whatever the shapes. Columns come from the gallery's width and the chosen density;
 * `groupOf` adds a heading row where the group changes (the day). `data-virtual-start`/`-end` say
 * which items are rendered, `data-virtual-total` how many the list holds read, `data-virtual-length`
 * its length with the placeholders of pages not read (for tests and debugging).
 *
 * Placeholders (pages not read yet) take their estimated size, and `onRange` says which positions
 * the window shows, so the page reads those pages. When rows change (a page arrives, its cards
 * and day headings replacing placeholders), the first row in view is kept where it stood on the
 * screen: the rows above may grow or shrink, what is in view does not move.
 */
export function VirtualGrid<T>({
  items,
  as = 'div',
  kind,
  density,
  className,
  itemKey,
  render,
  groupOf,
  estimateHeight,
  placeholderHeight,
  onRange,
  listId,
}: {
  items: readonly (T | Placeholder)[];
  /** `ul`: each row is a list of `li` cards. */
  as?: 'div' | 'ul';
  kind: GalleryKind;
  density: Density;
  className: string;
  itemKey: (item: T) => string;
  render: (item: T, index: number) => ReactNode;
  groupOf?: (item: T) => string;
  /** A card's likely height at `columnWidth` before it is measured (its image's shape, say). */
  estimateHeight?: (item: T, columnWidth: number) => number;
  /** A placeholder's height at `columnWidth` (a card of a page not read yet). */
  placeholderHeight?: (columnWidth: number) => number;
  /** The positions rendered (first to last, inclusive), placeholders included, as the window moves. */
  onRange?: (first: number, last: number) => void;
  /** Another list (a new search, filter or order): it starts from the top of the page, not at the old place. */
  listId?: number;
}) {
  const grid = useRef<HTMLDivElement>(null);
  const { width, top, viewport } = useGridBox(grid, items.length);
  const screen = viewport < PHONE_WIDTH ? 'phone' : 'wide';
  const gap = GRID_GAP[kind][screen];
  const columns = columnsFor(kind, density, width, viewport);
  const columnWidth = (width - gap * (columns - 1)) / columns;
  const { rows, rowOf } = useMemo(
    () => buildRows(items, columns, itemKey, groupOf),
    [items, columns, itemKey, groupOf],
  );
  const keyOf = useCallback(
    (item: T | Placeholder) => (isPlaceholder(item) ? item.key : itemKey(item)),
    [itemKey],
  );
  const indexOfKey = useMemo(() => new Map(items.map((item, index) => [keyOf(item), index])), [items, keyOf]);
  const read = useMemo(() => items.reduce((n, item) => (isPlaceholder(item) ? n : n + 1), 0), [items]);
  const placeholderPx = placeholderHeight?.(columnWidth) ?? columnWidth + 120;

  // The card holding focus keeps its row rendered wherever the window goes (scrolling away and back).
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

  const lastOffset = useRef(0);
  const movedBefore = useRef(false);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  useFocusedCard(grid, rowsRef, itemKey, focusedKey);

  // Stable while the rows are: a new function makes the virtualiser lay out every row again.
  const getItemKey = useCallback((index: number) => rows[index]?.key ?? index, [rows]);
  const estimateSize = useCallback(
    (index: number) => {
      const row = rows[index];
      if (row?.kind !== 'cards') return row ? HEADING_HEIGHT : 0;
      return rowHeight(
        row.items,
        (item) => estimateHeight?.(item, columnWidth) ?? columnWidth + 120,
        placeholderPx,
      );
    },
    [rows, columnWidth, estimateHeight, placeholderPx],
  );
  /** The first row of cards in view, its first item and how far below the viewport's top it starts. */
  const anchor = useRef<{ key: string; index: number; offset: number }>(undefined);
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
    [keyOf],
  );
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    scrollMargin: top,
    gap,
    overscan: Math.max(
      2,
      Math.min(Math.ceil(MARGIN_PX / (columnWidth + 150)), Math.floor(CARDS_BEYOND / columns)),
    ),
    getItemKey,
    estimateSize,
    rangeExtractor,
    onChange,
  });
  // A row measured at another height than it was placed with moves the view only when it lies wholly
  // above the viewport (the rows in view stay); TanStack's default also moves it for the row that
  // straddles the viewport's top on its first measure, which moved the cards in view as a page arrived.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = keepRowsInView;
  const virtualRows = virtualizer.getVirtualItems();
  // A flick (or a drag of the scrollbar): more than a screen since the last frame. Rows that come
  // into the window meanwhile are drawn as placeholders of their size, their cards once it slows
  // (the virtualiser renders again when the scroll stops): a fast flick mounts no cards per frame.
  // Two such frames in a row: a single jump (focus moving a card into view, End) draws its cards at
  // once, and so does any move while focus is in the grid (Tab must find the next card).
  const offset = virtualizer.scrollOffset ?? 0;
  const moved = Math.abs(offset - lastOffset.current) > window.innerHeight;
  const fast = moved && movedBefore.current && !grid.current?.contains(document.activeElement);
  lastOffset.current = offset;
  movedBefore.current = moved;
  const rendered = virtualRows.flatMap((row) => {
    const cards = rows[row.index];
    return cards?.kind === 'cards' ? [cards] : [];
  });
  const start = rendered[0]?.first ?? 0;
  const lastRow = rendered[rendered.length - 1];
  const end = lastRow ? lastRow.first + lastRow.items.length : 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a page read (new items) is a reason to report again.
  useEffect(() => {
    if (end > start) onRange?.(start, end - 1);
  }, [onRange, start, end, items]);

  const shownList = useRef(listId);
  // Rows changed (a page arrived, the day headings it brings): the anchor row stays where it stood.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the rows changing is what this follows.
  useLayoutEffect(() => {
    const was = anchor.current;
    if (shownList.current !== listId) {
      // The page's first list stays where the page is; a later one starts from the top.
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

  useReveal(items, keyOf, (index) => {
    const row = rowOf[index];
    if (row !== undefined) virtualizer.scrollToIndex(row, { align: 'center' });
  });

  return (
    <div
      ref={grid}
      className={`virtual-grid ${className}`}
      style={{ height: virtualizer.getTotalSize() }}
      data-virtual-start={start}
      data-virtual-end={end}
      data-virtual-total={read}
      data-virtual-length={items.length}
      data-columns={columns}
    >
      {virtualRows.map((virtualRow) => {
        const row = rows[virtualRow.index];
        return row ? (
          <GridRowView
            key={virtualRow.key}
            row={row}
            index={virtualRow.index}
            top={virtualRow.start - virtualizer.options.scrollMargin}
            as={as}
            columns={columns}
            gap={gap}
            measure={virtualizer.measureElement}
            placeholderHeight={placeholderPx}
            size={virtualRow.size}
            fast={fast}
            itemKey={itemKey}
            render={render}
          />
        ) : null;
      })}
    </div>
  );
}

/** Rows waiting to draw their cards after a flick, one a frame (not all in one long frame). */
const turns: Array<() => void> = [];
const nextTurn = () => {
  turns.shift()?.();
  if (turns.length > 0) requestAnimationFrame(nextTurn);
};
/** Runs `draw` in its turn, one a frame; the function returned takes it out of the queue. */
function inTurn(draw: () => void): () => void {
  turns.push(draw);
  if (turns.length === 1) requestAnimationFrame(nextTurn);
  return () => {
    const at = turns.indexOf(draw);
    if (at >= 0) turns.splice(at, 1);
  };
}

/** Whether a row's new height moves the view: only for a row wholly above the viewport. */
const keepRowsInView = (row: { end: number }, _delta: number, instance: { scrollOffset: number | null }) =>
  row.end <= (instance.scrollOffset ?? 0);

/** Keeps `focused` on the key of the card holding focus inside the grid (undefined when none does). */
function useFocusedCard<T>(
  grid: React.RefObject<HTMLDivElement | null>,
  rows: React.RefObject<GridRow<T>[]>,
  itemKey: (item: T) => string,
  focused: React.RefObject<string | undefined>,
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

interface GridRowProps<T> {
  row: GridRow<T>;
  index: number;
  top: number;
  as: 'div' | 'ul';
  columns: number;
  gap: number;
  measure: (element: Element | null) => void;
  placeholderHeight: number;
  /** The row's height as the virtualiser has it (a row drawn while `fast` is this tall). */
  size: number;
  fast: boolean;
  itemKey: (item: T) => string;
  render: (item: T, index: number) => ReactNode;
}

/**
 * One row: a day heading, or a row of cards. Memoised: while the page scrolls, only the rows that
 * come into the window render; those already there (same row, same place) are left alone.
 */
const GridRowView = memo(function GridRowView<T>({
  row,
  index,
  top,
  as,
  columns,
  gap,
  measure,
  placeholderHeight,
  size,
  fast,
  itemKey,
  render,
}: GridRowProps<T>) {
  // Mounted during a flick: placeholders until the scroll slows, then the cards (once; never back).
  const [lite, setLite] = useState(fast);
  useEffect(() => {
    if (lite && !fast) return inTurn(() => setLite(false));
  }, [lite, fast]);
  const style = { transform: `translateY(${top}px)` };
  if (row.kind === 'heading')
    return (
      <h2 ref={measure} data-index={index} className="virtual-row grid-heading" style={style}>
        {row.label}
      </h2>
    );
  const RowTag = as;
  return (
    <RowTag
      ref={measure}
      data-index={index}
      className="virtual-row grid-row"
      // A row of `ul` cards is a list of its own (list-style none would drop the role in Safari).
      role={as === 'ul' ? 'list' : undefined}
      style={{ ...style, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`, gap }}
    >
      {row.items.map((item, offset) => {
        const real = !isPlaceholder(item);
        if (real && !lite)
          return <VirtualCell key={itemKey(item)}>{render(item, row.first + offset)}</VirtualCell>;
        const Cell = as === 'ul' ? 'li' : 'div';
        return (
          <Cell
            key={real ? itemKey(item) : item.key}
            className="card-placeholder"
            aria-hidden
            style={{ height: real ? size : placeholderHeight }}
          />
        );
      })}
    </RowTag>
  );
}) as <T>(props: GridRowProps<T>) => ReactNode;

/** A keyed slot: the page's own card element is the row's child. */
function VirtualCell({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
