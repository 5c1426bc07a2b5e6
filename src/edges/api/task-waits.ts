import type { FastifyRequest } from 'fastify';
import type { TaskRecord } from '../../base/contract/tasks.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { TaskChangeFeed, TasksService } from '../../capabilities/tasks/index.js';
import { watchTasks } from '../../capabilities/tasks/index.js';
import type { ConnectionCaps } from '../http/connection-caps.js';

export const isFinal = (record: TaskRecord) => isFinalStatus(record.status);
const statusRank = { queued: 0, in_progress: 1, completed: 2, failed: 2 } as const;
/**
 * True when `next` is a later state of the task than `previous`. States only move forward (a
 * status never goes back, progress never decreases, final is final), so this is also "what the
 * caller sees has changed", robust to notifications that arrive late or out of order.
 */
export const isNewer = (previous: TaskRecord | undefined, next: TaskRecord) =>
  previous === undefined ||
  (!isFinal(previous) &&
    (statusRank[next.status] > statusRank[previous.status] ||
      (next.status === previous.status && next.progress > previous.progress)));

/**
 * Open event streams and long-polls, ended first when the server closes: a stream gets a final
 * `shutdown` event (an EventSource reconnects, through the balancer, to another node) and a
 * long-poll answers with the records as they are, so closing never waits on them.
 */
export class OpenWaits {
  private readonly ends = new Set<() => void>();
  private closed = false;

  /** Whether the server is closing (a new wait ends at once). */
  get closing(): boolean {
    return this.closed;
  }

  add(end: () => void): void {
    this.ends.add(end);
  }

  delete(end: () => void): void {
    this.ends.delete(end);
  }

  /** The server closes: every open wait ends now. */
  closeAll(): void {
    this.closed = true;
    for (const end of [...this.ends]) end();
  }
}

/** What the task routes read and hold. */
export interface TaskRouteDeps {
  tasks: TasksService;
  events: TaskChangeFeed;
  /** Counts open event streams (metrics). */
  streams?: { inc(): void; dec(): void };
  /** Open streams and long-polls per account and client address (shared by every prefix). */
  caps?: ConnectionCaps;
}

/** The task routes' dependencies and their open waits. */
export interface TaskRouteContext extends TaskRouteDeps {
  waits: OpenWaits;
}

/**
 * Long-poll: resolves when the visible record of one of `initial` moves on (status, progress or
 * result: a write that changes none of them is not a change), when `seconds` pass, or when the
 * caller goes away. It hears of changes from the feed, never by polling the store.
 */
export function waitForChange(
  { tasks, events, caps, waits }: TaskRouteContext,
  request: FastifyRequest,
  accountId: string,
  initial: TaskRecord[],
  seconds: number,
): Promise<void> {
  const before = new Map(initial.filter((r) => !isFinal(r)).map((r) => [r.task_id, r]));
  if (before.size === 0 || seconds === 0 || waits.closing) return Promise.resolve();
  // Throws (429) past the account's or the address's cap, before anything is held.
  const release = caps?.open(accountId, request.ip);
  const changed = (record: TaskRecord) =>
    before.has(record.task_id) && isNewer(before.get(record.task_id), record);
  return new Promise<void>((resolve) => {
    const watch = watchTasks({ feed: events, tasks }, accountId, [...before.keys()], {
      onRecord: changed,
      timeoutMs: seconds * 1000,
      onEnd: () => {
        release?.();
        request.raw.off('close', watch.stop);
        waits.delete(watch.stop);
        resolve();
      },
    });
    waits.add(watch.stop);
    request.raw.on('close', watch.stop);
  });
}
