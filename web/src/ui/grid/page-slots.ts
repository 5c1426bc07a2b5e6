import type { Placeholder } from './virtual-rows';

/**
 * The arithmetic of a list read page by page in any order (web/src/ui/grid/paged-list.ts): the list is
 * one or more sequences (Saved works' starred works pinned first, then all of them), each cut into
 * pages of `pageSize`; a page not read yet holds placeholders, one per item it will bring.
 */

/** One page of one sequence: its items once read, placeholders until then. */
export interface Segment<T> {
  seq: number;
  page: number;
  read: boolean;
  slots: readonly (T | Placeholder)[];
  /** Items taken out since it was read (deleted): the list's total is that much less. */
  removed?: number;
}

/** The page (from 1) holding the item at `offset` (from 0) of a sequence read `pageSize` at a time. */
export const pageOfOffset = (offset: number, pageSize: number) => Math.floor(offset / pageSize) + 1;

/** The pages of sequences of `totals` items, none read: `pageSize` placeholders each, fewer in the last. */
export function segmentsOf<T>(totals: readonly number[], pageSize: number): Segment<T>[] {
  return totals.flatMap((total, seq) =>
    Array.from({ length: Math.ceil(total / pageSize) }, (_, at) => {
      const page = at + 1;
      const length = Math.min(pageSize, total - at * pageSize);
      const slots = Array.from(
        { length },
        (_, i): Placeholder => ({ placeholder: true, key: `slot:${seq}:${page}:${i}` }),
      );
      return { seq, page, read: false, slots };
    }),
  );
}

/** Where each segment starts in the whole list (one more entry: the list's length). */
export function startsOf<T>(segments: readonly Segment<T>[]): Int32Array {
  const starts = new Int32Array(segments.length + 1);
  segments.forEach((segment, i) => {
    starts[i + 1] = (starts[i] ?? 0) + segment.slots.length;
  });
  return starts;
}

/** The segment holding position `index` of the whole list (the last one past the end), by bisection. */
export function segmentAt(starts: Int32Array, index: number): number {
  let low = 0;
  let high = starts.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= index) low = mid;
    else high = mid - 1;
  }
  return Math.max(0, low);
}

/**
 * The segments not read yet among those holding positions `first` to `last` (inclusive): what to
 * ask for when the window shows them (only those: not every page between the last read and them).
 */
export function unreadBetween<T>(
  segments: readonly Segment<T>[],
  starts: Int32Array,
  first: number,
  last: number,
): number[] {
  if (segments.length === 0 || last < first) return [];
  const unread: number[] = [];
  for (let i = segmentAt(starts, first); i <= segmentAt(starts, last); i++)
    if (segments[i]?.read === false) unread.push(i);
  return unread;
}

/** The list with segment `index` read: its items take the placeholders' place (fewer shorten it). */
export function withPage<T>(
  segments: readonly Segment<T>[],
  index: number,
  items: readonly T[],
): Segment<T>[] {
  return segments.map((segment, i) => (i === index ? { ...segment, read: true, slots: items } : segment));
}

/** Items of sequence `seq` taken out (deleted) from its pages before `page`. */
export function removedBefore<T>(segments: readonly Segment<T>[], seq: number, page: number): number {
  let removed = 0;
  for (const segment of segments)
    if (segment.seq === seq && segment.page < page) removed += segment.removed ?? 0;
  return removed;
}

/**
 * Reads what page `page` (of `length` items) held when the list was first counted, after `removed`
 * items before it were taken out: the server's pages have moved up by that many, so those items now
 * start `removed` earlier — at most two of its pages, cut to the page's own stretch. With nothing
 * taken out it is the page itself.
 */
export async function readShifted<T>(
  read: (seq: number, page: number) => Promise<{ items: T[]; total: number }>,
  seq: number,
  page: number,
  pageSize: number,
  length: number,
  removed: number,
): Promise<{ items: T[]; total: number }> {
  if (removed === 0) return read(seq, page);
  const start = Math.max(0, (page - 1) * pageSize - removed);
  const end = start + length;
  const first = pageOfOffset(start, pageSize);
  const last = pageOfOffset(Math.max(start, end - 1), pageSize);
  const answers = await Promise.all(Array.from({ length: last - first + 1 }, (_, i) => read(seq, first + i)));
  const items = answers.flatMap((answer) => answer.items);
  const base = (first - 1) * pageSize;
  return { items: items.slice(start - base, end - base), total: answers.at(-1)?.total ?? 0 };
}
