import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { gridGeometry, overscanRows, renderedRange } from './grid-window';
import { useGridBox, useReveal } from './virtual-grid-box';
import {
  useAnchorTracking,
  useFlick,
  useFocusedCard,
  useFocusKeptRow,
  useKeepAnchor,
  useReportRange,
} from './virtual-grid-hooks';
import {
  buildRows,
  type Density,
  type GalleryKind,
  type GridRow,
  isPlaceholder,
  type Placeholder,
  rowHeight,
} from './virtual-rows';

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
  const { gap, columns, columnWidth } = gridGeometry(kind, density, width, viewport);
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
  const { focusedKey, rangeExtractor } = useFocusKeptRow(indexOfKey, rowOf);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  useFocusedCard(grid, rowsRef, itemKey, focusedKey);
  const { anchor, onChange } = useAnchorTracking(rowsRef, items, keyOf);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    scrollMargin: top,
    gap,
    overscan: overscanRows(columnWidth, columns),
    // Stable while the rows are: a new function makes the virtualiser lay out every row again.
    getItemKey: useCallback((index: number) => rows[index]?.key ?? index, [rows]),
    estimateSize: useRowEstimate(rows, columnWidth, placeholderPx, estimateHeight),
    rangeExtractor,
    onChange,
  });
  // A row measured at another height than it was placed with moves the view only when it lies wholly
  // above the viewport (the rows in view stay); TanStack's default also moves it for the row that
  // straddles the viewport's top on its first measure, which moved the cards in view as a page arrived.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = keepRowsInView;
  const virtualRows = virtualizer.getVirtualItems();
  const fast = useFlick(grid, virtualizer.scrollOffset ?? 0);
  const { start, end } = renderedRange(
    rows,
    virtualRows.map((row) => row.index),
  );
  useReportRange(onRange, start, end, items);
  useKeepAnchor({ anchor, rows, items, indexOfKey, rowOf, virtualizer, listId });
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

/** A row's estimated height before it is measured: a heading's, or its tallest card's estimate. */
function useRowEstimate<T>(
  rows: GridRow<T>[],
  columnWidth: number,
  placeholderPx: number,
  estimateHeight: ((item: T, columnWidth: number) => number) | undefined,
) {
  return useCallback(
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
