import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../../src/use-cases/read-models/creations.js';
import { formatDuration, formatEstimate, withSuffix } from '../../web/src/features/create/create-text.js';

test('elapsed time and the estimate read as a person would say them', () => {
  assert.equal(formatDuration(12_400), '12 s');
  assert.equal(formatDuration(65_000), '1 min 05 s');
  assert.equal(formatEstimate(41_200), 'about 40 s');
  assert.equal(formatEstimate(7_300), 'about 7 s');
  assert.equal(formatEstimate(150_000), 'about 3 min');
});

test('the median of durations (the estimate) is the middle one, or the mean of the middle two', () => {
  assert.equal(median([30, 10, 20]), 20);
  assert.equal(median([40, 10, 20, 30]), 25);
  assert.equal(median([5]), 5);
});

test("a preset's style suffix is appended once, with a comma unless it brings its own", () => {
  assert.equal(withSuffix('a lighthouse', ', pencil sketch'), 'a lighthouse, pencil sketch');
  assert.equal(withSuffix('a lighthouse', 'pencil sketch'), 'a lighthouse, pencil sketch');
  assert.equal(withSuffix('a lighthouse, pencil sketch', ', pencil sketch'), 'a lighthouse, pencil sketch');
  assert.equal(withSuffix('', ', pencil sketch'), 'pencil sketch');
  assert.equal(withSuffix('a lighthouse  ', undefined), 'a lighthouse  ');
  assert.equal(withSuffix('x'.repeat(7995), ', ink').length, 8000);
});
