import { createFairQueue } from './fair-queue.js';

/**
 * At most `limit` calls of `run` at a time; the others wait their turn. For CPU-bound work (image
 * encoding) that would otherwise take both cores from the API's event loop.
 *
 * Waiters are served fairly between keys: when a slot frees, the keys that have work waiting take
 * turns (round robin, in the order each key first queued), and one key's calls run in the order
 * they were made (fair-queue.ts). One key's backlog therefore delays another key's call by at
 * most one call per waiting key, not by the whole backlog.
 */
export function createFairConcurrencyLimit(limit: number) {
  let running = 0;
  const waiting = createFairQueue<() => void>();
  const release = () => {
    const wake = waiting.shift();
    // The slot passes straight to the waiter: `running` is unchanged, so no newcomer can slip in.
    if (wake) wake();
    else running--;
  };
  /** Waits for a slot handed over by a release; an abort takes the waiter out of its line. */
  const turn = (key: string, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        waiting.remove(key, wake);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      waiting.push(key, wake);
    });
  return {
    /**
     * Runs `work` in a slot, after the waiters ahead of it in fair turns. An abort of `signal` while
     * waiting leaves the line and rejects with its reason (a worker shutting down does not wait for
     * a backlog of renders); once started, `work` runs to its end.
     */
    async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      signal?.throwIfAborted();
      if (running >= limit) await turn(key, signal);
      else running++;
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}

/** At most `limit` calls of `run` at a time; the others wait their turn, in order. */
export function createConcurrencyLimit(limit: number) {
  const fair = createFairConcurrencyLimit(limit);
  return { run: <T>(work: () => Promise<T>): Promise<T> => fair.run('', work) };
}
