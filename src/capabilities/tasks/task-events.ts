import { EventEmitter } from 'node:events';
import type { TaskRecord } from './task-record.js';

/** A change to a task: its account and its record right after the write. */
export interface TaskChange {
  accountId: string;
  record: TaskRecord;
  /**
   * Set when the change stored a partial frame: the task's frame count (the newest frame is
   * `partialFrames - 1`, blob `partialFrameKey`). Not part of the wire record.
   */
  partialFrames?: number;
}

/** What a subscriber is told: a task's change, or that changes may have been missed (re-read). */
export interface TaskChangeListener {
  onChange(change: TaskChange): void;
  /** Notifications may have been lost (the feed's connection dropped and came back): re-read. */
  onResync?(): void;
}

/**
 * The port through which the event stream, long-polls and the website learn of task changes made
 * by any worker: in process on SQLite (one process writes), over `LISTEN/NOTIFY` on PostgreSQL
 * (any node). Subscribers never poll the store for changes.
 */
export interface TaskChangeFeed {
  /** Announces a change written by this process (to this process at once, and to other nodes). */
  publish(change: TaskChange): void;
  /** Calls `listener` for every change of the account's tasks; returns the unsubscribe function. */
  subscribe(accountId: string, listener: TaskChangeListener): () => void;
  /** Tells the workers of every node that tasks became due (new ones, or due sooner): they wake up. */
  announceWork(): void;
  /** Calls `listener` whenever any node announces work; returns the unsubscribe function. */
  onWork(listener: () => void): () => void;
  close(): Promise<void>;
}

const RESYNC = Symbol('resync');
const WORK = Symbol('work');

/** The fan-out to this process's subscribers, shared by every feed. */
export function createLocalFanOut() {
  const emitter = new EventEmitter();
  // One listener per open stream or long-poll; there is no fixed bound on those.
  emitter.setMaxListeners(0);
  return {
    emit(change: TaskChange): void {
      emitter.emit(change.accountId, change);
    },
    resync(): void {
      emitter.emit(RESYNC);
    },
    work(): void {
      emitter.emit(WORK);
    },
    onWork(listener: () => void): () => void {
      emitter.on(WORK, listener);
      return () => emitter.off(WORK, listener);
    },
    subscribe(accountId: string, listener: TaskChangeListener): () => void {
      const onChange = (change: TaskChange) => listener.onChange(change);
      const onResync = () => listener.onResync?.();
      emitter.on(accountId, onChange);
      emitter.on(RESYNC, onResync);
      return () => {
        emitter.off(accountId, onChange);
        emitter.off(RESYNC, onResync);
      };
    },
  };
}

/** The feed of a single-writer store (SQLite): every change is written, and heard, in this process. */
export function createInProcessTaskFeed(): TaskChangeFeed {
  const fanOut = createLocalFanOut();
  return {
    publish: fanOut.emit,
    subscribe: fanOut.subscribe,
    announceWork: fanOut.work,
    onWork: fanOut.onWork,
    async close() {},
  };
}
