import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRows, coverHeight, type Placeholder, rowHeight } from './virtual-rows.js';

const hole = (key: string): Placeholder => ({ placeholder: true, key });
interface Work {
  id: string;
  aspect: string;
  day: string;
}
const work = (id: string, aspect: string, day: string): Work => ({ id, aspect, day });

describe('the rows of a virtual grid (virtual-rows)', () => {
  test('a cover from its aspect ratio, capped', () => {
    assert.equal(coverHeight('16:9', 320), 180);
    assert.equal(coverHeight('9:16', 270), 480);
    assert.equal(coverHeight('9:16', 270, 420), 420);
    assert.equal(coverHeight('1:1', 200), 200);
    assert.equal(coverHeight('nonsense', 200), 200);
  });

  test("a row's height: its tallest card, placeholders at their estimate", () => {
    const cover = (w: Work) => coverHeight(w.aspect, 300) + 150;
    assert.equal(rowHeight([work('a', '16:9', ''), work('b', '3:4', '')], cover, 0), 550);
    assert.equal(rowHeight([work('a', '16:9', ''), hole('p')], cover, 450), 450);
    assert.equal(rowHeight<Work>([], cover, 450), 0);
  });

  test('rows of `columns` items, a heading where the day changes; placeholders stay in the day before them', () => {
    const items = [
      work('a', '1:1', 'Today'),
      work('b', '1:1', 'Today'),
      work('c', '1:1', 'Today'),
      hole('s1'),
      hole('s2'),
      work('d', '1:1', 'Yesterday'),
    ];
    const { rows, rowOf } = buildRows(
      items,
      2,
      (w) => w.id,
      (w) => w.day,
    );
    assert.deepEqual(
      rows.map((row) =>
        row.kind === 'heading'
          ? row.label
          : row.items.map((item) => ('placeholder' in item ? item.key : item.id)).join(),
      ),
      ['Today', 'a,b', 'c,s1', 's2', 'Yesterday', 'd'],
    );
    assert.deepEqual([...rowOf], [1, 1, 2, 2, 3, 5]);
    // Keyed by the first item: a placeholder row keeps its key until its page arrives.
    assert.equal(rows[3]?.key, 'row:2:s2');
  });
});
