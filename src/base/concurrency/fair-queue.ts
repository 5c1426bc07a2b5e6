/**
 * Waiters kept per key and served in fair turns: `shift` takes the first waiter of the key whose
 * turn it is, then moves that key to the back of the turn order (or drops it when it has nobody
 * left), so keys with waiters take turns (round robin, in the order each key first queued) and one
 * key's waiters leave in the order they came. One key's backlog of thousands therefore delays
 * another key's waiter by at most one turn per waiting key, not by the backlog. The one unit behind
 * every fair line of CPU work in a node (the `local` renderer, renditions, reference decoding).
 */
export function createFairQueue<T>() {
  /** Per key, its waiters in order; Map iteration order is the round robin's turn order. */
  const lines = new Map<string, T[]>();
  let size = 0;
  return {
    /** Adds a waiter at the end of its key's line (a new key joins the end of the turn order). */
    push(key: string, item: T): void {
      const line = lines.get(key);
      if (line) line.push(item);
      else lines.set(key, [item]);
      size++;
    },
    /** The next waiter in fair turns, taken out of its line; undefined when nobody waits. */
    shift(): T | undefined {
      const next = lines.entries().next();
      if (next.done) return undefined;
      const [key, line] = next.value;
      const item = line.shift();
      lines.delete(key);
      if (line.length > 0) lines.set(key, line);
      size--;
      return item;
    },
    /** Takes a waiter out of its line (it gave up); false when it was not there. */
    remove(key: string, item: T): boolean {
      const line = lines.get(key);
      const at = line?.indexOf(item) ?? -1;
      if (!line || at < 0) return false;
      line.splice(at, 1);
      if (line.length === 0) lines.delete(key);
      size--;
      return true;
    },
    /** Waiters in all lines. */
    size: (): number => size,
    /** Waiters in `key`'s line. */
    sizeOf: (key: string): number => lines.get(key)?.length ?? 0,
  };
}

export type FairQueue<T> = ReturnType<typeof createFairQueue<T>>;
