import type { TaskChangeFeed } from './task-events.js';
import { notFoundRecord, type TaskRecord, toTaskRecord } from './task-record.js';
import type { TasksService } from './tasks-service.js';

/** What a watch tells its caller. */
export interface TaskWatchOptions {
  /**
   * Receives records of the watched tasks: from the feed as they change, and from the store (once
   * after subscribing, and after each resync of the feed), in input order with a not-found record
   * for an id the account has not. They may arrive late or out of order (compare states). Returns
   * true to end the watch.
   */
  onRecord(record: TaskRecord): boolean;
  /** Called once when the watch ends (onRecord said so, the ceiling passed, or stop was called). */
  onEnd?(): void;
  /** The ceiling in milliseconds; none when absent. */
  timeoutMs?: number;
  /**
   * Receives a watched task's partial frame count (OpenAI's stream): from the feed when a frame is
   * stored, and from the store on each read. Counts may repeat or arrive late. No extra read without it.
   */
  onPartialFrames?(taskId: string, frames: number): void;
}

/**
 * Watches an account's tasks `ids` on the task change feed (long-poll, the event stream, the
 * OpenAI routes' wait): it hears of changes from the feed and reads the store once after
 * subscribing (a change written before the subscription is found there) and on a resync, never
 * polling it. Ends when `onRecord` says so, at the ceiling, or on `stop()`.
 */
export function watchTasks(
  deps: {
    feed: TaskChangeFeed;
    tasks: Pick<TasksService, 'findMany'> & Partial<Pick<TasksService, 'partialFrames'>>;
  },
  accountId: string,
  ids: readonly string[],
  options: TaskWatchOptions,
): { stop(): void } {
  const watched = new Set(ids);
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    unsubscribe();
    if (timer !== undefined) clearTimeout(timer);
    options.onEnd?.();
  };
  const consider = (record: TaskRecord) => {
    if (!done && watched.has(record.task_id) && options.onRecord(record)) stop();
  };
  const framesOf = (taskId: string, frames: number) => {
    if (!done && watched.has(taskId) && frames > 0) options.onPartialFrames?.(taskId, frames);
  };
  const reread = () =>
    Promise.all([
      options.onPartialFrames && deps.tasks.partialFrames
        ? deps.tasks.partialFrames(accountId, ids)
        : new Map<string, number>(),
      deps.tasks.findMany(accountId, ids),
    ]).then(
      ([frames, rows]) => {
        for (const [id, count] of frames) framesOf(id, count);
        const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
        for (const id of ids) consider(byId.get(id) ?? notFoundRecord(id));
      },
      () => undefined,
    );
  const unsubscribe = deps.feed.subscribe(accountId, {
    onChange: (change) => {
      if (change.partialFrames !== undefined) framesOf(change.record.task_id, change.partialFrames);
      consider(change.record);
    },
    onResync: () => void reread(),
  });
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(stop, options.timeoutMs);
  void reread();
  return { stop };
}
