import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitingText } from '../../web/src/lib/format.js';

// The website's card of a parked task: why it waits, its place in the account's queue, the estimate.
test('a waiting card names its place in the queue and when it should start', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const at = (ms: number) => new Date(now + ms).toISOString();
  assert.equal(waitingText({}, now), 'Waiting for upstream capacity');
  assert.equal(
    waitingText({ queue_position: 3, estimated_start_at: at(40_000) }, now),
    'Waiting for upstream capacity · #3 in your queue · starts ~in 40 s',
  );
  assert.equal(
    waitingText({ queue_position: 1, estimated_start_at: at(5 * 60_000) }, now),
    'Waiting for upstream capacity · #1 in your queue · starts ~in 5 min',
  );
  assert.equal(
    waitingText({ queue_position: 1, estimated_start_at: at(-2000) }, now),
    'Waiting for upstream capacity · #1 in your queue · starts soon',
  );
  assert.equal(waitingText({ queue_position: 2 }, now), 'Waiting for upstream capacity · #2 in your queue');
});
