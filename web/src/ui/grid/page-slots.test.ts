import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  pageOfOffset,
  readShifted,
  removedBefore,
  segmentAt,
  segmentsOf,
  startsOf,
  unreadBetween,
  withPage,
} from './page-slots.js';
import { isPlaceholder } from './virtual-rows.js';

describe('a list read page by page (page-slots)', () => {
  test('offset → page, from 1', () => {
    assert.deepEqual(
      [0, 23, 24, 47, 4_999].map((offset) => pageOfOffset(offset, 24)),
      [1, 1, 2, 2, 209],
    );
  });

  test('the pages of each sequence, the last one short; placeholders named by sequence, page and place', () => {
    const segments = segmentsOf<string>([50, 3], 24);
    assert.deepEqual(
      segments.map((s) => [s.seq, s.page, s.slots.length, s.read]),
      [
        [0, 1, 24, false],
        [0, 2, 24, false],
        [0, 3, 2, false],
        [1, 1, 3, false],
      ],
    );
    assert.deepEqual(segments[2]?.slots[1], { placeholder: true, key: 'slot:0:3:1' });
    assert.deepEqual([...startsOf(segments)], [0, 24, 48, 50, 53]);
    assert.deepEqual(segmentsOf([0], 24), []);
  });

  test('a position → its page, by bisection (past the end: the last)', () => {
    const starts = startsOf(segmentsOf<string>([5_000], 24));
    assert.deepEqual(
      [0, 23, 24, 4_500, 4_999, 9_999].map((i) => segmentAt(starts, i)),
      [0, 0, 1, 187, 208, 208],
    );
  });

  test('the window at 90 % asks for its pages only, not those between', () => {
    let segments = segmentsOf<string>([5_000], 24);
    segments = withPage(segments, 0, ['a']);
    const starts = startsOf(segments);
    // Page 1 now holds one item: positions move up by 23.
    assert.equal(starts[1], 1);
    assert.deepEqual(unreadBetween(segments, starts, 4_480, 4_530), [187, 188, 189]);
    assert.deepEqual(unreadBetween(segments, starts, 0, 0), []);
    assert.deepEqual(unreadBetween(segments, starts, 5, 1), []);
  });

  test("a page read takes its placeholders' place; the others are left as they were", () => {
    const segments = segmentsOf<string>([30], 24);
    const next = withPage(segments, 1, ['x', 'y']);
    assert.equal(next[0], segments[0]);
    assert.deepEqual(next[1]?.slots, ['x', 'y']);
    assert.equal(next[1]?.read, true);
    assert.equal(next.flatMap((s) => s.slots).filter((slot) => isPlaceholder(slot)).length, 24);
  });

  test('after deletions above it, a page read brings the items it held when counted: none missed, none twice', async () => {
    // A server list of 25 items, pages of 10; the client read page 1, then took out 3 of its items.
    let server = Array.from({ length: 25 }, (_, i) => `w${i}`);
    const read = async (_seq: number, page: number) => ({
      items: server.slice((page - 1) * 10, page * 10),
      total: server.length,
    });
    let segments = withPage(segmentsOf<string>([25], 10), 0, server.slice(0, 10));
    segments = segments.map((s) => (s.page === 1 ? { ...s, slots: s.slots.slice(3), removed: 3 } : s));
    server = server.filter((w) => !['w0', 'w4', 'w9'].includes(w));
    assert.equal(removedBefore(segments, 0, 2), 3);
    assert.equal(removedBefore(segments, 0, 1), 0);
    const second = await readShifted(read, 0, 2, 10, 10, 3);
    assert.deepEqual(
      second.items,
      Array.from({ length: 10 }, (_, i) => `w${10 + i}`),
    );
    const third = await readShifted(read, 0, 3, 10, 5, 3);
    assert.deepEqual(third.items, ['w20', 'w21', 'w22', 'w23', 'w24']);
    // Nothing taken out: the page itself, one read.
    assert.deepEqual((await readShifted(read, 0, 1, 10, 10, 0)).items.length, 10);
  });
});
