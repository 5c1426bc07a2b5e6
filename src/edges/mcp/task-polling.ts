import { setTimeout as delay } from 'node:timers/promises';
import {
  AtelierApiError,
  type AtelierClient,
  isFinalStatus,
  type TaskRecord,
} from '../client/atelier-client.js';

/** The spec's recommended polling interval is 2-5 s (§8); polls never come faster than this. */
export const MIN_POLL_INTERVAL_MS = 2_000;
export const MAX_POLL_INTERVAL_MS = 5_000;
const MAX_IDS_PER_BATCH = 20;

export interface PollingClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Wall clock and real timers. */
export function systemClock(): PollingClock {
  return {
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      await delay(ms, undefined, { signal });
    },
  };
}

export interface WaitOptions {
  /** Longest time to keep polling; the last poll may land up to one interval after it. */
  waitMs: number;
  intervalMs: number;
  clock: PollingClock;
  signal?: AbortSignal;
  /** Called after every successful poll, e.g. to send progress notifications. */
  onPoll?: (tasks: TaskRecord[]) => Promise<void> | void;
}

export interface WaitOutcome {
  /** Latest records, in the order of the ids; undefined when no poll succeeded. */
  tasks: TaskRecord[] | undefined;
  finished: boolean;
  /** Why polling stopped early or its last attempt failed. */
  lastError?: unknown;
}

/**
 * Polls the batch endpoint every `intervalMs` until every task is final or `waitMs` has passed.
 * A failed poll is retried at the next tick (a blip must not lose submitted tasks), except a 4xx,
 * which will not heal by itself.
 */
export async function waitForTasks(
  client: AtelierClient,
  ids: readonly string[],
  options: WaitOptions,
): Promise<WaitOutcome> {
  const { clock, signal } = options;
  const intervalMs = Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs));
  const deadline = clock.now() + options.waitMs;
  let tasks: TaskRecord[] | undefined;
  let lastError: unknown;
  while (clock.now() < deadline) {
    await clock.sleep(intervalMs, signal);
    try {
      tasks = await pollAll(client, ids, signal);
      lastError = undefined;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      lastError = error;
      if (error instanceof AtelierApiError && error.status >= 400 && error.status < 500) break;
      continue;
    }
    await options.onPoll?.(tasks);
    if (tasks.every((task) => isFinalStatus(task.status))) return { tasks, finished: true };
  }
  return lastError === undefined ? { tasks, finished: false } : { tasks, finished: false, lastError };
}

async function pollAll(
  client: AtelierClient,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<TaskRecord[]> {
  // The batch endpoint takes at most 20 ids; a catalog may allow more images per request.
  const records: TaskRecord[] = [];
  for (let start = 0; start < ids.length; start += MAX_IDS_PER_BATCH) {
    const { tasks } = await client.getTasks(ids.slice(start, start + MAX_IDS_PER_BATCH), { signal });
    records.push(...tasks);
  }
  return records;
}

/** Overall progress of a set of tasks in percent: 100 exactly when every task is final. */
export function overallProgress(tasks: readonly TaskRecord[]): number {
  if (tasks.length === 0) return 100;
  // A running task never counts as 100, or the total could claim "done" while one is still pending.
  const sum = tasks.reduce(
    (acc, task) => acc + (isFinalStatus(task.status) ? 100 : Math.min(99, clampPercent(task.progress))),
    0,
  );
  return Math.floor(sum / tasks.length);
}

function clampPercent(value: number): number {
  return Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0;
}
