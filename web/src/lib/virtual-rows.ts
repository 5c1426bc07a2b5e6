import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/**
 * A window over a long CSS grid (issue 30, "smooth at 5,000 works"): only the rows near the
 * viewport are rendered, the rest of the list stands in as the grid's top and bottom padding.
 * Hand-written rather than a library: the page scrolls (not a box), the grid's columns come from
 * CSS (`auto-fill`), and the rows are measured as they render — what is needed is the arithmetic
 * below, not a dependency.
 *
 * - Columns: read from the grid's computed `grid-template-columns`, so the phone's one or two
 *   columns and the desktop's four or five follow the stylesheet.
 * - Row height: the rendered rows' mean (their span plus one gap over their count), so cards of
 *   somewhat different heights still place the window closely.
 * - Window: the viewport and `marginPx` above and below it, a fixed number of rows slid along the
 *   list (at the top, the margin's rows go below), so the DOM keeps its size wherever one is.
 * - Margin: `marginPx` above and below the viewport stay rendered (at least a screen), so Tab from
 *   the last rendered card reaches a card, which the browser scrolls into view, which moves the
 *   window: keyboard order goes on through the whole list.
 * - Focus: the card holding focus stays rendered while it is within `KEEP_FOCUSED_ROWS` rows of the
 *   window (scrolling away with the wheel and back keeps it); beyond that the window lets it go.
 */

/**
 * Asked by the lightbox when it closes on an item whose card is not rendered: the grid holding an
 * item with one of `ids` scrolls it into view, then focuses `selector` (the card's open button).
 */
export const REVEAL_EVENT = 'atelier:reveal';
export interface RevealRequest {
  ids: string[];
  selector: string;
}

/** How many items are rendered before the grid has been measured. */
const FIRST_ITEMS = 24;
/** How far (rows) past the window a focused card is still kept rendered. */
const KEEP_FOCUSED_ROWS = 40;

export interface VirtualRows {
  /** The items to render: indices `start` (inclusive) to `end` (exclusive). */
  start: number;
  end: number;
  /** The grid's padding standing in for the rows not rendered. */
  padTop: number;
  padBottom: number;
  /** Scrolls the page so that item `index` is in view (e.g. the lightbox's last image on close). */
  scrollToIndex: (index: number) => void;
}

interface Measure {
  columns: number;
  rowHeight: number;
}

function columnsOf(grid: HTMLElement): number {
  const template = getComputedStyle(grid).gridTemplateColumns;
  const count = template.split(' ').filter((part) => part.trim() !== '').length;
  return Math.max(1, count);
}

export function useVirtualRows(
  grid: RefObject<HTMLElement | null>,
  count: number,
  marginPx = 1200,
): VirtualRows {
  const [measure, setMeasure] = useState<Measure>();
  const [window_, setWindow] = useState({ first: 0, last: -1 });
  const focused = useRef<number>(-1);
  const startRef = useRef(0);

  const update = useCallback(() => {
    const element = grid.current;
    if (!element) return;
    const columns = columnsOf(element);
    const children = Array.from(element.children) as HTMLElement[];
    const firstChild = children[0];
    const lastChild = children[children.length - 1];
    let rowHeight = measure?.rowHeight ?? 0;
    if (firstChild && lastChild) {
      const gap = Number.parseFloat(getComputedStyle(element).rowGap) || 0;
      const rows = Math.ceil(children.length / columns);
      const span = lastChild.getBoundingClientRect().bottom - firstChild.getBoundingClientRect().top;
      const measured = (span + gap) / rows;
      // Small changes are noise (an image decoding, a caption wrapping): keep the window still.
      if (measured > 0 && Math.abs(measured - rowHeight) > 2) rowHeight = measured;
    }
    if (rowHeight <= 0) return;
    if (columns !== measure?.columns || rowHeight !== measure.rowHeight) setMeasure({ columns, rowHeight });
    const top = element.getBoundingClientRect().top;
    const rowsTotal = Math.ceil(count / columns);
    // A window of a fixed number of rows (the viewport and the margin on both sides), slid along the
    // list and held inside it: the DOM stays the same size at the top, the middle and the end.
    const rowsInWindow = Math.ceil((window.innerHeight + 2 * marginPx) / rowHeight) + 1;
    let first = Math.min(
      Math.max(0, Math.floor((-top - marginPx) / rowHeight)),
      Math.max(0, rowsTotal - rowsInWindow),
    );
    let last = Math.min(rowsTotal - 1, first + rowsInWindow - 1);
    // Keep the focused card's row rendered while it is near (see above).
    const focusRow = focused.current >= 0 ? Math.floor(focused.current / columns) : -1;
    if (focusRow >= 0 && focusRow < rowsTotal) {
      if (focusRow < first && first - focusRow <= KEEP_FOCUSED_ROWS) first = focusRow;
      if (focusRow > last && focusRow - last <= KEEP_FOCUSED_ROWS) last = focusRow;
    }
    setWindow((current) => (current.first === first && current.last === last ? current : { first, last }));
  }, [grid, count, marginPx, measure]);

  useLayoutEffect(() => {
    update();
  });

  useEffect(() => {
    let frame = 0;
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        update();
      });
    };
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    const element = grid.current;
    // Which item holds focus: the rendered child containing it, offset by the window's start.
    const onFocus = (event: FocusEvent) => {
      const target = event.target instanceof Node ? event.target : null;
      const children = element ? Array.from(element.children) : [];
      const at = children.findIndex((child) => target !== null && child.contains(target));
      focused.current = at >= 0 ? startRef.current + at : -1;
    };
    const onBlur = (event: FocusEvent) => {
      if (!(event.relatedTarget instanceof Node) || !element?.contains(event.relatedTarget))
        focused.current = -1;
    };
    element?.addEventListener('focusin', onFocus);
    element?.addEventListener('focusout', onBlur);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      element?.removeEventListener('focusin', onFocus);
      element?.removeEventListener('focusout', onBlur);
    };
  }, [grid, update]);

  const scrollToIndex = useCallback(
    (index: number) => {
      const element = grid.current;
      if (!element || !measure) return;
      const row = Math.floor(index / measure.columns);
      const top = element.getBoundingClientRect().top + window.scrollY + row * measure.rowHeight;
      window.scrollTo({ top: Math.max(0, top - window.innerHeight / 3) });
    },
    [grid, measure],
  );

  if (!measure || window_.last < 0) {
    const end = Math.min(count, FIRST_ITEMS);
    startRef.current = 0;
    return { start: 0, end, padTop: 0, padBottom: 0, scrollToIndex };
  }
  const { columns, rowHeight } = measure;
  const rowsTotal = Math.ceil(count / columns);
  const first = Math.min(window_.first, Math.max(0, rowsTotal - 1));
  const last = Math.min(window_.last, rowsTotal - 1);
  const start = first * columns;
  const end = Math.min(count, (last + 1) * columns);
  startRef.current = start;
  return {
    start,
    end,
    padTop: first * rowHeight,
    padBottom: Math.max(0, (rowsTotal - last - 1) * rowHeight),
    scrollToIndex,
  };
}
