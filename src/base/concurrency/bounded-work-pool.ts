import { RateLimited } from '../domain/errors.js';
import { createFairQueue } from './fair-queue.js';

/**
 * A pool of `concurrency` slots for heavy work (image encoding, search), with a bounded line of
 * callers waiting for a slot, served in fair turns between keys (fair-queue.ts: the keys with
 * callers waiting take turns, one key's callers go in order). Each key has at most `queue` callers
 * waiting, all keys together at most `totalQueue` (default `queue`); a caller past either is
 * refused at once with `RateLimited` (429 and Retry-After at the edge) instead of joining an
 * unbounded line: the work of one client cannot take every thread (libuv's pool serves file reads
 * too), grow memory without bound, or fill every place so that another client is refused.
 */
export function createBoundedWorkPool(options: {
  concurrency: number;
  queue: number;
  totalQueue?: number;
  /** What a refused caller is told. */
  busyMessage: string;
  /** The Retry-After of a refusal. */
  retryAfterMs: number;
}) {
  const totalQueue = options.totalQueue ?? options.queue;
  let running = 0;
  const waiting = createFairQueue<() => void>();
  return {
    /**
     * Runs `work` in a slot, in `key`'s turn (one shared line without a key); throws RateLimited
     * when every slot is taken and the key's waiting places (or all of them) are too.
     */
    async run<T>(work: () => Promise<T>, key = ''): Promise<T> {
      if (running < options.concurrency) running++;
      else if (waiting.sizeOf(key) >= options.queue || waiting.size() >= totalQueue)
        throw new RateLimited(options.busyMessage, options.retryAfterMs);
      // The slot is handed over by its releaser (running stays counted): nobody jumps the line.
      else await new Promise<void>((resolve) => waiting.push(key, resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
    /** Work running and callers waiting now (metrics, tests). */
    load: () => ({ running, waiting: waiting.size() }),
  };
}

export type BoundedWorkPool = ReturnType<typeof createBoundedWorkPool>;
