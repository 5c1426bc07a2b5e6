import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { onRevealRequest, type RevealRequest } from './reveal';

/**
 * The grid's width, its top in the document (the virtualiser's scroll margin) and the viewport's
 * width, kept current as the page above it or the window changes size. Each is set only when it
 * changes, and none depends on the rows rendered: no render loop.
 */
export function useGridBox(grid: React.RefObject<HTMLDivElement | null>, count: number) {
  const [box, setBox] = useState({ width: 0, top: 0, viewport: window.innerWidth });
  const measure = useCallback(() => {
    const element = grid.current;
    if (!element) return;
    const rect = element.getBoundingClientRect();
    const next = {
      width: rect.width,
      top: Math.round(rect.top + window.scrollY),
      viewport: window.innerWidth,
    };
    setBox((current) =>
      Math.abs(current.width - next.width) < 0.5 &&
      current.top === next.top &&
      current.viewport === next.viewport
        ? current
        : next,
    );
  }, [grid]);
  // Before the first paint and when the list changes; later moves of the page above the grid change
  // the page's size, which the observer below sees (no layout read on every scroll frame).
  // biome-ignore lint/correctness/useExhaustiveDependencies: a longer or shorter list is a reason to measure.
  useLayoutEffect(measure, [measure, count]);
  useEffect(() => {
    const element = grid.current;
    if (!element) return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.parentElement) observer.observe(element.parentElement);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [grid, measure]);
  return box;
}

/**
 * The lightbox closed on an item whose card is not rendered (a reveal request, ./reveal.ts): scroll its row into
 * view, then focus the card once it is rendered.
 */
export function useReveal<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  scrollTo: (index: number) => void,
) {
  const [reveal, setReveal] = useState<RevealRequest>();
  const scrollRef = useRef(scrollTo);
  scrollRef.current = scrollTo;
  useEffect(() => {
    return onRevealRequest((request) => {
      const index = items.findIndex((item) => request.ids.includes(keyOf(item)));
      if (index < 0) return;
      scrollRef.current(index);
      setReveal(request);
      setTimeout(() => setReveal((current) => (current === request ? undefined : current)), 3000);
    });
  }, [items, keyOf]);
  useEffect(() => {
    if (!reveal) return;
    const card = document.querySelector<HTMLElement>(reveal.selector);
    if (!card) return; // not rendered yet: the window moves with the scroll, and this runs again
    card.focus();
    setReveal(undefined);
  });
}
