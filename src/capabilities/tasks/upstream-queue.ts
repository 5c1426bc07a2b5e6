import type { PollOutcome } from '../providers/index.js';
import type { TaskPatch, TaskRow } from './tasks-repository.js';

/**
 * What a pending answer writes of the upstream's own queue (fal): while the task is `queued` there
 * with a place the upstream stated, the wait and that place (1 = next); once it runs, or when a
 * later answer states none, both cleared. Nothing for a task that never waited there.
 */
export function upstreamQueuePatch(
  task: Pick<TaskRow, 'waiting_for'>,
  outcome: Extract<PollOutcome, { kind: 'pending' }> | { kind: 'pending' },
  status: 'queued' | 'in_progress',
): Pick<TaskPatch, 'waiting_for' | 'upstream_queue_position'> {
  const position = 'queuePosition' in outcome ? outcome.queuePosition : undefined;
  if (position !== undefined && status === 'queued')
    return { waiting_for: 'upstream_queue', upstream_queue_position: position };
  if (task.waiting_for === 'upstream_queue') return { waiting_for: null, upstream_queue_position: null };
  return {};
}
