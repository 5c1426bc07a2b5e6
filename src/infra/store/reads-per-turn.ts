/**
 * Point reads by key, asked for within one event-loop turn, answered by one query for all of them,
 * issued once the turn's I/O callbacks have run (`setImmediate`). Every read still starts after it
 * was asked for, so it sees every commit that came before the request that asked: the read-your-
 * writes of a query per request, at one round trip per turn instead of one per request (64 clients
 * paging one account's history sent 64 identical primary-key reads a turn).
 * `readMany` answers a value for each key it finds; a key it leaves out reads as `missing`.
 */
export function readsPerTurn<K, V>(readMany: (keys: K[]) => Promise<Map<K, V>>, missing: V) {
  let batch: Map<K, PromiseWithResolvers<V>> | undefined;

  function flush(asked: Map<K, PromiseWithResolvers<V>>): void {
    batch = undefined;
    readMany([...asked.keys()]).then(
      (found) => {
        for (const [key, waiting] of asked) waiting.resolve(found.get(key) ?? missing);
      },
      (error: unknown) => {
        for (const waiting of asked.values()) waiting.reject(error);
      },
    );
  }

  return (key: K): Promise<V> => {
    if (batch === undefined) {
      batch = new Map();
      setImmediate(flush, batch);
    }
    let waiting = batch.get(key);
    if (waiting === undefined) {
      waiting = Promise.withResolvers<V>();
      batch.set(key, waiting);
    }
    return waiting.promise;
  };
}
