/**
 * At most `limit` calls of `run` at a time; the others wait their turn. For CPU-bound work (image
 * encoding) that would otherwise take both cores from the API's event loop.
 *
 * Waiters are served fairly between keys: when a slot frees, the keys that have work waiting take
 * turns (round robin, in the order each key first queued), and one key's calls run in the order
 * they were made. One key's backlog therefore delays another key's call by at most one call per
 * waiting key, not by the whole backlog.
 */
export function createFairConcurrencyLimit(limit: number) {
  let running = 0;
  /** Per key, its waiters in order; Map iteration order is the round robin's turn order. */
  const waiting = new Map<string, Array<() => void>>();
  const release = () => {
    const next = waiting.entries().next();
    if (next.done) {
      running--;
      return;
    }
    const [key, queue] = next.value;
    const wake = queue.shift();
    // The key goes to the back of the turn order (or leaves it when it has nobody left waiting).
    waiting.delete(key);
    if (queue.length > 0) waiting.set(key, queue);
    // The slot passes straight to the waiter: `running` is unchanged, so no newcomer can slip in.
    wake?.();
  };
  /** Waits for a slot handed over by a release; an abort takes the waiter out of its line. */
  const turn = (key: string, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const queue = waiting.get(key);
        const at = queue?.indexOf(wake) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) waiting.delete(key);
        }
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      const queue = waiting.get(key);
      if (queue) queue.push(wake);
      else waiting.set(key, [wake]);
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
