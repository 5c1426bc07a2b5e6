import { RateLimited } from '../domain/errors.js';

/**
 * A pool of `concurrency` slots for heavy work (image encoding, search), with at most `queue`
 * callers waiting for a slot, in order. A caller past that is refused at once with `RateLimited`
 * (429 and Retry-After at the edge) instead of joining an unbounded line: the work of one client
 * cannot take every thread (libuv's pool serves file reads too) nor grow memory without bound.
 */
export function createBoundedWorkPool(options: {
  concurrency: number;
  queue: number;
  /** What a refused caller is told. */
  busyMessage: string;
  /** The Retry-After of a refusal. */
  retryAfterMs: number;
}) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    /** Runs `work` in a slot; throws RateLimited when every slot and every waiting place is taken. */
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running < options.concurrency) running++;
      else if (waiting.length >= options.queue)
        throw new RateLimited(options.busyMessage, options.retryAfterMs);
      // The slot is handed over by its releaser (running stays counted): nobody jumps the line.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
    /** Work running and callers waiting now (metrics, tests). */
    load: () => ({ running, waiting: waiting.length }),
  };
}

export type BoundedWorkPool = ReturnType<typeof createBoundedWorkPool>;
