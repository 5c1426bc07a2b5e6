import { type RefObject, useLayoutEffect } from 'react';

/** The grid's row unit in CSS pixels (`grid-auto-rows` of `.task-grid.masonry`). */
const ROW_PX = 4;

/**
 * Create's cards packed as a masonry: the grid's rows are ROW_PX tall and each card spans as many
 * as its measured height (plus the gap below it) needs, so a short batch beside a tall single is
 * followed at once by the next card instead of a hole down to the single's end. The grid places
 * densely (`grid-auto-flow: row dense`): each card in the highest gap it fits, so the order is newest
 * first but for a later card filling a gap an earlier batch left. A card's height depends on its column's
 * width only, never on its row span, so measuring cannot loop; ResizeObserver answers after layout
 * and before paint, so the spans are in place in the first frame shown.
 */
export function useMasonryRows(grid: RefObject<HTMLElement | null>, shown: boolean): void {
  useLayoutEffect(() => {
    const element = grid.current;
    if (!element || !shown) return;
    const span = (card: Element) => {
      // The space below a card is the grid's column gap (its row gap is 0: the rows are the unit).
      const gapPx = Number.parseFloat(getComputedStyle(element).columnGap) || 0;
      const height = card.getBoundingClientRect().height;
      const rows = Math.max(1, Math.ceil((height + gapPx) / ROW_PX));
      const value = `span ${rows}`;
      const style = (card as HTMLElement).style;
      if (style.gridRowEnd !== value) style.gridRowEnd = value;
    };
    const observer = new ResizeObserver((entries) => {
      for (const entry of entries) span(entry.target);
    });
    const observeAll = () => {
      for (const card of element.children) observer.observe(card);
    };
    observeAll();
    // Cards come and go as tasks are submitted and cleared: new ones are observed too.
    const children = new MutationObserver(observeAll);
    children.observe(element, { childList: true });
    return () => {
      observer.disconnect();
      children.disconnect();
    };
  }, [grid, shown]);
}
