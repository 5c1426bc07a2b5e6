import { isFinalStatus } from '../../base/domain/task-status.js';
import type { TaskChangeFeed } from './task-events.js';
import { notFoundRecord, type TaskRecord } from './task-record.js';
import { watchTasks } from './task-watch.js';
import type { TasksService } from './tasks-service.js';

const isFinal = (record: TaskRecord | undefined) => isFinalStatus(record?.status);

/** What a wait ends with: the records as last seen, and whether every task had ended. */
export interface WaitOutcome {
  records: TaskRecord[];
  allFinal: boolean;
}

/**
 * Waits until every task of `ids` has ended, `timeoutMs` passes, or `stop` is called (the caller
 * went away, the server closes), watching the task feed like the long-poll (src/capabilities/tasks/task-watch.ts).
 */
export function waitForTasks(
  deps: { feed: TaskChangeFeed; tasks: TasksService },
  accountId: string,
  ids: readonly string[],
  timeoutMs: number,
): { outcome: Promise<WaitOutcome>; stop(): void } {
  const latest = new Map<string, TaskRecord>();
  const allFinal = () => ids.every((id) => isFinal(latest.get(id)));
  let stop = () => {};
  const outcome = new Promise<WaitOutcome>((resolve) => {
    const watch = watchTasks(deps, accountId, ids, {
      timeoutMs,
      // A final record is never replaced: notifications and re-reads may arrive out of order.
      onRecord: (record) => {
        if (isFinal(latest.get(record.task_id))) return false;
        latest.set(record.task_id, record);
        return allFinal();
      },
      onEnd: () =>
        resolve({ records: ids.map((id) => latest.get(id) ?? notFoundRecord(id)), allFinal: allFinal() }),
    });
    stop = watch.stop;
  });
  return { outcome, stop: () => stop() };
}
