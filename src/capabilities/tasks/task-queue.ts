import type { AdminQueue } from '../../base/contract/admin-queue.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { TaskStatus } from '../../base/domain/task-status.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { CapacityLimits } from './capacity/capacity-pool.js';
import type { UpstreamCapacity } from './capacity/upstream-capacity.js';
import {
  type CancelScope,
  findTaskStatus,
  readQueueGroups,
  readQueuePools,
  selectCancelIds,
} from './queue-reads.js';
import { assembleQueue } from './queue-view.js';
import { OPERATOR_CANCELED, type TaskEngine } from './task-engine.js';
import { TASK_NOT_FOUND } from './task-record.js';

/** What a cancel takes: one task, or an account's or a route's tasks. */
export type QueueCancelScope = { kind: 'task'; taskId: string } | CancelScope;

/** Which tasks of the scope: those whose status is queued, or every unfinished one. */
export type QueueCancelStatus = 'queued' | 'unfinished';

const STATUSES: Record<QueueCancelStatus, readonly TaskStatus[]> = {
  queued: ['queued'],
  unfinished: ['queued', 'in_progress'],
};

/**
 * The operator's queue: what waits and runs per route and pool, read from the store (true for every
 * node), and the cancel of one task, an account's tasks or a route's, through the engine (the only
 * writer of task state): each ends failed with OPERATOR_CANCELED, as a caller's cancel ends it.
 */
export function createTaskQueue({
  db,
  clock,
  capacity,
  engine,
  limitsOf = () => ({}),
}: {
  db: Db;
  clock: Clock;
  capacity: Pick<UpstreamCapacity, 'rules' | 'windowSpan'>;
  engine: Pick<TaskEngine, 'cancelMany'>;
  /** The catalog's capacity limits of a route, by its id. */
  limitsOf?: (routeId: string) => CapacityLimits;
}) {
  return {
    /** Every route's waiting and running tasks, its pools and its accounts' shares, now. */
    async view(): Promise<AdminQueue> {
      const now = clock.now();
      const [groups, pools] = await Promise.all([
        readQueueGroups(db, now),
        readQueuePools(db, now, capacity.windowSpan),
      ]);
      return assembleQueue(groups, pools, {
        now,
        rules: capacity.rules,
        windowSpan: capacity.windowSpan,
        limitsOf,
      });
    },

    /**
     * Cancels the scope's unfinished tasks of `status`; answers how many it ended. One task that
     * does not exist is NotFound; one that ended, or is in progress under `queued`, is a Conflict.
     */
    async cancel(scope: QueueCancelScope, status: QueueCancelStatus): Promise<number> {
      const statuses = STATUSES[status];
      const ids =
        scope.kind === 'task'
          ? [await cancelableTask(db, scope.taskId, status)]
          : await selectCancelIds(db, scope, statuses);
      const ended = await engine.cancelMany(ids, { error: OPERATOR_CANCELED, statuses });
      if (scope.kind === 'task' && ended.length === 0) await cancelableTask(db, scope.taskId, status);
      return ended.length;
    },

    /** The error an operator's cancel leaves on each task. */
    error: OPERATOR_CANCELED,
  };
}

export type TaskQueue = ReturnType<typeof createTaskQueue>;

/** The task's id when a cancel of `status` may take it; NotFound or Conflict (saying why) otherwise. */
async function cancelableTask(db: Db, taskId: string, status: QueueCancelStatus): Promise<string> {
  const row = await findTaskStatus(db, taskId);
  if (!row) throw new NotFound(TASK_NOT_FOUND);
  if (row.status === 'completed') throw new Conflict('Task already completed; it cannot be canceled');
  if (row.status === 'failed')
    throw new Conflict(`Task already failed (${row.error ?? ''}); it cannot be canceled`);
  if (row.status === 'in_progress' && status === 'queued')
    throw new Conflict('Task is in progress; cancel it with status "unfinished"');
  return taskId;
}
