import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gridGeometry, movedAScreen, overscanRows, renderedRange } from './grid-window.js';
import { buildRows, columnsFor, dayHeading } from './virtual-rows.js';

describe("the virtual grid's window", () => {
  test('columns from the width and density: as many as fit at the narrowest column, at least one', () => {
    // Saved works, comfortable, wide: 270 px columns, 18 px gaps → (width + 18) / 288.
    assert.equal(columnsFor('works', 'comfortable', 1200, 1400), 4);
    assert.equal(columnsFor('works', 'comfortable', 100, 1400), 1);
    // A phone (viewport under 640 px) uses its own narrowest column and gap.
    assert.equal(columnsFor('library', 'compact', 400, 500), 3);
  });

  test("the column width shares the grid's width less the gaps", () => {
    const { gap, columns, columnWidth } = gridGeometry('works', 'comfortable', 1200, 1400);
    assert.deepEqual([gap, columns], [18, 4]);
    assert.equal(columnWidth, (1200 - 18 * 3) / 4);
  });

  test("rows beyond the viewport: about 1,600 px of them, at most 16 cards' worth, at least two", () => {
    assert.equal(overscanRows(250, 1), 4); // 1,600 px of 400 px rows (250 + 150): four rows
    assert.equal(overscanRows(150, 8), 2); // 16 cards are two rows of eight
    assert.equal(overscanRows(1000, 1), 2); // a wide single column: still two
  });

  test('the rendered rows name the items they hold; heading rows hold none', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    const { rows } = buildRows(
      items,
      2,
      (item) => item,
      (item) => (item < 'c' ? 'one' : 'two'),
    );
    // heading one, [a b], heading two, [c d], [e]
    assert.deepEqual(renderedRange(rows, [0, 1]), { start: 0, end: 2 });
    assert.deepEqual(renderedRange(rows, [2, 3, 4]), { start: 2, end: 5 });
    assert.deepEqual(renderedRange(rows, [2]), { start: 0, end: 0 });
  });

  test('a flick moves more than a screen between frames', () => {
    assert.equal(movedAScreen(2000, 900, 1000), true);
    assert.equal(movedAScreen(1500, 900, 1000), false);
  });

  test('day headings: Today, Yesterday, then the date', () => {
    const now = new Date(2026, 10, 28, 15).getTime();
    assert.equal(dayHeading(new Date(2026, 10, 28, 1).getTime(), now), 'Today');
    assert.equal(dayHeading(new Date(2026, 10, 27, 23).getTime(), now), 'Yesterday');
    assert.notEqual(dayHeading(new Date(2026, 10, 20).getTime(), now), 'Yesterday');
  });
});
