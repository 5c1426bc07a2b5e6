import { type RefObject, useEffect } from 'react';

/**
 * Infinite scroll: `loadMore` runs when `sentinel` (an element after the list) comes within
 * `marginPx` of the viewport; Saved works and the Library use it. Nothing watches while `active`
 * is false (no more pages, an error shown, a load under way).
 */
export function useInfiniteScroll(
  sentinel: RefObject<HTMLElement | null>,
  loadMore: () => void,
  active: boolean,
  marginPx = 600,
): void {
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !active) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) loadMore();
      },
      { rootMargin: `${marginPx}px` },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [sentinel, loadMore, active, marginPx]);
}
