/**
 * At most `limit` calls of `run` at a time; the others wait their turn, in order. For CPU-bound
 * work (image encoding) that would otherwise take both cores from the API's event loop.
 */
export function createConcurrencyLimit(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      running++;
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}
