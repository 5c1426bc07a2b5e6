import { type ReactNode, useEffect, useRef, useState } from 'react';
import { REVEAL_EVENT, type RevealRequest, useVirtualRows } from '../lib/virtual-rows';

/**
 * A CSS grid of many items that renders only the rows near the viewport (web/src/lib/virtual-rows.ts):
 * Saved works and the Library at 5,000 items keep about the same number of DOM nodes as they scroll.
 * `data-virtual-start`/`-end` say which items are rendered (for tests and debugging).
 */
export function VirtualGrid<T>({
  items,
  as = 'div',
  className,
  itemKey,
  render,
}: {
  items: readonly T[];
  as?: 'div' | 'ul';
  className: string;
  itemKey: (item: T) => string;
  render: (item: T, index: number) => ReactNode;
}) {
  const grid = useRef<HTMLDivElement & HTMLUListElement>(null);
  const { start, end, padTop, padBottom, scrollToIndex } = useVirtualRows(grid, items.length);
  // The lightbox closed on a card outside the window: scroll to it, then focus it once rendered.
  const [reveal, setReveal] = useState<RevealRequest>();
  useEffect(() => {
    const onReveal = (event: Event) => {
      const request = (event as CustomEvent<RevealRequest>).detail;
      const index = items.findIndex((item) => request.ids.includes(itemKey(item)));
      if (index < 0) return;
      scrollToIndex(index);
      setReveal(request);
      setTimeout(() => setReveal((current) => (current === request ? undefined : current)), 3000);
    };
    window.addEventListener(REVEAL_EVENT, onReveal);
    return () => window.removeEventListener(REVEAL_EVENT, onReveal);
  }, [items, itemKey, scrollToIndex]);
  useEffect(() => {
    if (!reveal) return;
    const card = document.querySelector<HTMLElement>(reveal.selector);
    if (!card) return; // not rendered yet: the window moves with the scroll, and this runs again
    card.focus();
    setReveal(undefined);
  });
  const Tag = as;
  return (
    <Tag
      ref={grid}
      className={className}
      style={{ paddingTop: padTop, paddingBottom: padBottom }}
      data-virtual-start={start}
      data-virtual-end={end}
      data-virtual-total={items.length}
    >
      {items.slice(start, end).map((item, offset) => (
        <VirtualCell key={itemKey(item)}>{render(item, start + offset)}</VirtualCell>
      ))}
    </Tag>
  );
}

/** A keyed slot: the page's own card element is the grid's child. */
function VirtualCell({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
