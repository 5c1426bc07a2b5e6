import { type ReactNode, useRef } from 'react';
import { useVirtualRows } from '../lib/virtual-rows';

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
  const { start, end, padTop, padBottom } = useVirtualRows(grid, items.length);
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
