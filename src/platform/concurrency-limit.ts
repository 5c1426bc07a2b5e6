/**
 * At most `limit` calls of `run` at a time; the others wait their turn, in order. For CPU-bound
 * work (image encoding, password hashing) that would otherwise take both cores, or the whole libuv
 * pool, from the API's event loop. With `maxWaiting`, the queue is bounded: a call that finds it
 * full is refused at once with `whenFull()`'s error instead of waiting without end.
 */
export function createConcurrencyLimit(
  limit: number,
  options: { maxWaiting?: number; whenFull?: () => Error } = {},
) {
  const maxWaiting = options.maxWaiting ?? Number.POSITIVE_INFINITY;
  let running = 0;
  const waiting: Array<() => void> = [];
  // A finished call hands its turn straight to the next in line, so a newcomer arriving in between
  // cannot overtake the queue (and `running` never exceeds the limit).
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return {
    /** Calls running now and calls waiting for a turn. */
    get load() {
      return { running, waiting: waiting.length };
    },
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running < limit) running++;
      else if (waiting.length >= maxWaiting) {
        throw options.whenFull?.() ?? new Error(`more than ${maxWaiting} calls waiting`);
      } else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
