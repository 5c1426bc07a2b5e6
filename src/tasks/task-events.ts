import { EventEmitter } from 'node:events';
import type { TaskRecord } from './task-record.js';

/** A change to a task: its account and its record right after the write. */
export interface TaskChange {
  accountId: string;
  record: TaskRecord;
}

/**
 * The store's change notifications for tasks, in process. The event stream and long-poll listen
 * here instead of polling the database; they also re-read the store on a slow tick, so a task
 * written by another process (a separate worker) is still seen.
 */
export function createTaskEvents() {
  const emitter = new EventEmitter();
  // One listener per open stream or long-poll; there is no fixed bound on those.
  emitter.setMaxListeners(0);
  return {
    publish(change: TaskChange): void {
      emitter.emit(change.accountId, change);
    },
    /** Calls `listener` for every change of the account's tasks; returns the unsubscribe function. */
    subscribe(accountId: string, listener: (change: TaskChange) => void): () => void {
      emitter.on(accountId, listener);
      return () => emitter.off(accountId, listener);
    },
  };
}

export type TaskEvents = ReturnType<typeof createTaskEvents>;
