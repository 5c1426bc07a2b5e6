/**
 * The arithmetic of a virtual grid's window (virtual-grid.tsx), pure so it is unit-tested beside it:
 * the grid's columns and their width, how many rows stay rendered beyond the viewport, which items the
 * rendered rows hold, and what counts as a flick.
 */
import {
  columnsFor,
  type Density,
  type GalleryKind,
  GRID_GAP,
  type GridRow,
  PHONE_WIDTH,
} from './virtual-rows.js';

/**
 * Beyond the viewport on each side, about this many pixels of rows stay rendered (so Tab from the
 * last visible card reaches the next one, and a short list is rendered whole)…
 */
export const MARGIN_PX = 1600;
/** …but at most this many cards' worth of rows (and at least two rows): a compact grid keeps a small DOM. */
export const CARDS_BEYOND = 16;

/** The grid's gap, columns and column width for its width, density and the viewport's width. */
export function gridGeometry(kind: GalleryKind, density: Density, width: number, viewport: number) {
  const screen = viewport < PHONE_WIDTH ? 'phone' : 'wide';
  const gap = GRID_GAP[kind][screen];
  const columns = columnsFor(kind, density, width, viewport);
  const columnWidth = (width - gap * (columns - 1)) / columns;
  return { gap, columns, columnWidth };
}

/** The rows rendered beyond the viewport on each side: MARGIN_PX of rows, at most CARDS_BEYOND cards, at least 2. */
export function overscanRows(columnWidth: number, columns: number): number {
  return Math.max(
    2,
    Math.min(Math.ceil(MARGIN_PX / (columnWidth + 150)), Math.floor(CARDS_BEYOND / columns)),
  );
}

/** The items the rendered rows hold: positions `start` (inclusive) to `end` (exclusive); headings hold none. */
export function renderedRange<T>(rows: readonly GridRow<T>[], rendered: readonly number[]) {
  const cards = rendered.flatMap((index) => {
    const row = rows[index];
    return row?.kind === 'cards' ? [row] : [];
  });
  const start = cards[0]?.first ?? 0;
  const last = cards[cards.length - 1];
  return { start, end: last ? last.first + last.items.length : 0 };
}

/** Whether the scroll moved more than a screen since the last frame. */
export const movedAScreen = (offset: number, lastOffset: number, screen: number): boolean =>
  Math.abs(offset - lastOffset) > screen;
