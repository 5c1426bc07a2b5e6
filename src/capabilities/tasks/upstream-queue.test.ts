import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upstreamQueuePatch } from './upstream-queue.js';

test("an upstream's queue place is written while queued there, cleared once it runs, and never invented", () => {
  const queued = { kind: 'pending' as const, status: 'queued' as const, queuePosition: 3 };
  assert.deepEqual(upstreamQueuePatch({ waiting_for: null }, queued, 'queued'), {
    waiting_for: 'upstream_queue',
    upstream_queue_position: 3,
  });
  // Running (or a task the engine already marked in progress): the wait ends.
  const running = { kind: 'pending' as const, status: 'in_progress' as const };
  assert.deepEqual(upstreamQueuePatch({ waiting_for: 'upstream_queue' }, running, 'in_progress'), {
    waiting_for: null,
    upstream_queue_position: null,
  });
  assert.deepEqual(upstreamQueuePatch({ waiting_for: 'upstream_queue' }, queued, 'in_progress'), {
    waiting_for: null,
    upstream_queue_position: null,
  });
  // No place stated, and no upstream wait before: nothing written (a capacity wait is not touched).
  assert.deepEqual(upstreamQueuePatch({ waiting_for: null }, { kind: 'pending' }, 'queued'), {});
  assert.deepEqual(upstreamQueuePatch({ waiting_for: 'upstream_capacity' }, running, 'in_progress'), {});
});
