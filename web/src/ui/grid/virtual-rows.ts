/**
 * The rows of a virtualised gallery (Saved works, the Library; web/src/ui/grid/virtual-grid.tsx):
 * the list cut into rows of `columns` items, with a heading row wherever the group changes (the day
 * a work was made, "Starred" for pinned works). The rows are what the virtualiser windows over; each
 * row is measured once rendered, so cards of different heights (seven aspect ratios, long prompts,
 * failed batches) never move the window by themselves (issue 37: the mean-of-rows estimate looped).
 */

/** How large a gallery's cards are; remembered per browser (web/src/ui/grid/grid-view.ts). */
export type Density = 'compact' | 'comfortable' | 'large';
export type GalleryKind = 'works' | 'library';

/** Each gallery's narrowest column per density, on a wide screen and on a phone (under 640 px). */
const MIN_COLUMN: Record<GalleryKind, Record<Density, { wide: number; phone: number }>> = {
  works: {
    compact: { wide: 200, phone: 150 },
    comfortable: { wide: 270, phone: 270 },
    large: { wide: 400, phone: 270 },
  },
  library: {
    compact: { wide: 140, phone: 100 },
    comfortable: { wide: 190, phone: 140 },
    large: { wide: 300, phone: 300 },
  },
};

/** The space between cards, in CSS pixels (wide, phone). */
export const GRID_GAP: Record<GalleryKind, { wide: number; phone: number }> = {
  works: { wide: 18, phone: 16 },
  library: { wide: 16, phone: 10 },
};

export const PHONE_WIDTH = 640;

/** How many columns a gallery of `width` pixels shows at `density`. */
export function columnsFor(kind: GalleryKind, density: Density, width: number, viewport: number) {
  const screen = viewport < PHONE_WIDTH ? 'phone' : 'wide';
  const min = MIN_COLUMN[kind][density][screen];
  const gap = GRID_GAP[kind][screen];
  return Math.max(1, Math.floor((width + gap) / (min + gap)));
}

/**
 * A slot of a list whose page has not been read yet (web/src/ui/grid/paged-list.ts): the grid keeps
 * its place at an estimated size, so the list is as tall as its total and any position can be
 * reached at once; `key` names the slot (sequence, page, place), stable until the page arrives.
 */
export interface Placeholder {
  placeholder: true;
  key: string;
}
export const isPlaceholder = (item: unknown): item is Placeholder =>
  typeof item === 'object' && item !== null && (item as Partial<Placeholder>).placeholder === true;

export type GridRow<T> =
  | { kind: 'heading'; key: string; label: string }
  | { kind: 'cards'; key: string; items: (T | Placeholder)[]; first: number };

/**
 * The list as rows: a new row every `columns` items, and a heading row (and a fresh row) where
 * `groupOf` changes. `first` is the index in `items` of the row's first item; `rowOf[i]` is the row
 * holding item `i`. A placeholder belongs to the group before it (its own is not known yet: the
 * heading appears when its page arrives).
 */
export function buildRows<T>(
  items: readonly (T | Placeholder)[],
  columns: number,
  itemKey: (item: T) => string,
  groupOf?: (item: T) => string,
): { rows: GridRow<T>[]; rowOf: Int32Array } {
  const rows: GridRow<T>[] = [];
  const rowOf = new Int32Array(items.length);
  let group: string | undefined;
  let row: { kind: 'cards'; key: string; items: (T | Placeholder)[]; first: number } | undefined;
  items.forEach((item, index) => {
    const real = isPlaceholder(item) ? undefined : item;
    const next = real === undefined ? undefined : groupOf?.(real);
    const key = real === undefined ? (item as Placeholder).key : itemKey(real);
    if (next !== undefined && next !== group) {
      group = next;
      rows.push({ kind: 'heading', key: `group:${next}:${key}`, label: next });
      row = undefined;
    }
    if (!row || row.items.length >= columns) {
      row = { kind: 'cards', key: `row:${columns}:${key}`, items: [], first: index };
      rows.push(row);
    }
    row.items.push(item);
    rowOf[index] = rows.length - 1;
  });
  return { rows, rowOf };
}

/** The height of a cover of aspect `w:h` in a column `columnWidth` wide, at most `max` pixels. */
export function coverHeight(aspect: string, columnWidth: number, max = Number.POSITIVE_INFINITY): number {
  const [w = 1, h = 1] = aspect.split(':').map(Number);
  return Math.min(max, (columnWidth * (h || 1)) / (w || 1));
}

/** A row's height before it is measured: its tallest card's (`cardHeight`), or `placeholderHeight`. */
export function rowHeight<T>(
  items: readonly (T | Placeholder)[],
  cardHeight: (item: T) => number,
  placeholderHeight: number,
): number {
  let tallest = 0;
  for (const item of items)
    tallest = Math.max(tallest, isPlaceholder(item) ? placeholderHeight : cardHeight(item));
  return tallest;
}

const startOfDay = (at: number) => {
  const day = new Date(at);
  return new Date(day.getFullYear(), day.getMonth(), day.getDate()).getTime();
};
/** Headings already written, by the day's start, for the day `labelsToday` (a list of 5,000 has ~50 days). */
const labels = new Map<number, string>();
let labelsToday = 0;

/**
 * The day a timestamp falls on, as a heading: Today, Yesterday, or the weekday and date (and the
 * year when it is not this year). Cached per day: formatting a date is slow enough that doing it
 * for each of 5,000 items on every page load made long tasks.
 */
export function dayHeading(at: number, now = Date.now()): string {
  const today = startOfDay(now);
  if (today !== labelsToday) {
    labels.clear();
    labelsToday = today;
  }
  const start = startOfDay(at);
  const known = labels.get(start);
  if (known !== undefined) return known;
  const days = Math.round((today - start) / 86_400_000);
  const day = new Date(start);
  const label =
    days === 0
      ? 'Today'
      : days === 1
        ? 'Yesterday'
        : day.toLocaleDateString(undefined, {
            weekday: 'long',
            day: 'numeric',
            month: 'long',
            ...(day.getFullYear() === new Date(now).getFullYear() ? {} : { year: 'numeric' }),
          });
  labels.set(start, label);
  return label;
}
