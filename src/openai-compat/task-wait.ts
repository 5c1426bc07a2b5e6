import type { TaskChangeFeed } from '../tasks/task-events.js';
import { notFoundRecord, type TaskRecord, toTaskRecord } from '../tasks/task-record.js';
import type { TasksService } from '../tasks/tasks-service.js';

const isFinal = (record: TaskRecord | undefined) =>
  record?.status === 'completed' || record?.status === 'failed';

/** What a wait ends with: the records as last seen, and whether every task had ended. */
export interface WaitOutcome {
  records: TaskRecord[];
  allFinal: boolean;
}

/**
 * Waits until every task of `ids` has ended, `timeoutMs` passes, or `stop` is called (the caller
 * went away, the server closes). It hears of changes from the task feed, like the long-poll, and
 * reads the store once after subscribing (and on a resync), never polling it.
 */
export function waitForTasks(
  deps: { feed: TaskChangeFeed; tasks: TasksService },
  accountId: string,
  ids: readonly string[],
  timeoutMs: number,
): { outcome: Promise<WaitOutcome>; stop(): void } {
  const latest = new Map<string, TaskRecord>();
  let stop = () => {};
  const outcome = new Promise<WaitOutcome>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      unsubscribe();
      clearTimeout(timer);
      const records = ids.map((id) => latest.get(id) ?? notFoundRecord(id));
      resolve({ records, allFinal: ids.every((id) => isFinal(latest.get(id))) });
    };
    stop = finish;
    // A final record is never replaced: notifications and re-reads may arrive out of order.
    const consider = (record: TaskRecord) => {
      if (!ids.includes(record.task_id) || isFinal(latest.get(record.task_id))) return;
      latest.set(record.task_id, record);
      if (ids.every((id) => isFinal(latest.get(id)))) finish();
    };
    const reread = () =>
      deps.tasks.findMany(accountId, ids).then(
        (rows) => {
          for (const row of rows) consider(toTaskRecord(row));
        },
        () => undefined,
      );
    const unsubscribe = deps.feed.subscribe(accountId, {
      onChange: (change) => consider(change.record),
      onResync: () => void reread(),
    });
    const timer = setTimeout(finish, timeoutMs);
    // After subscribing: a task that ended before the subscription is found here.
    void reread();
  });
  return { outcome, stop: () => stop() };
}
