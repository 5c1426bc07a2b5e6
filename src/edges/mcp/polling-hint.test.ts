import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollingHint } from './tool-results.js';

test('the polling hint says when tasks wait for upstream capacity, so an agent neither gives up nor resubmits', () => {
  assert.equal(
    pollingHint([{ task_id: 'tsk_1', status: 'queued' }]),
    'Task tsk_1 is still queued; call get_task again in 2-5 seconds.',
  );
  assert.match(
    pollingHint([{ task_id: 'tsk_1', status: 'queued', waiting_for: 'upstream_capacity' }]) ?? '',
    /It waits for upstream capacity \(the provider's rate limit\): a wait keeps its turn and never fails a task; do not submit again\.$/,
  );
  assert.match(
    pollingHint([
      { task_id: 'tsk_1', status: 'queued', waiting_for: 'upstream_capacity' },
      { task_id: 'tsk_2', status: 'in_progress' },
      { task_id: 'tsk_3', status: 'completed' },
    ]) ?? '',
    /^2 tasks are not finished; .* 1 of them wait for upstream capacity/,
  );
  // Where it stands: its place in the account's queue and the start estimate, when the record has them.
  assert.match(
    pollingHint([
      {
        task_id: 'tsk_1',
        status: 'queued',
        waiting_for: 'upstream_capacity',
        queue_position: 3,
        estimated_start_at: '2026-01-01T12:00:35.000Z',
      },
    ]) ?? '',
    /do not submit again\. It is #3 in your queue, expected to start around 2026-01-01T12:00:35\.000Z\.$/,
  );
  assert.match(
    pollingHint([
      { task_id: 'tsk_1', status: 'queued', waiting_for: 'upstream_capacity', queue_position: 2 },
      { task_id: 'tsk_2', status: 'queued', waiting_for: 'upstream_capacity', queue_position: 1 },
    ]) ?? '',
    /The first of them is #1 in your queue\.$/,
  );
});
