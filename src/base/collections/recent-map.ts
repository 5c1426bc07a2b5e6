/** A map that keeps about `capacity` of its most recently used entries. */
export interface RecentMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
}

/**
 * Bounded by two generations: entries land in the young map; when it fills, it becomes the old one
 * and the previous old one is dropped. A hit in the old map moves to the young one, so an entry in
 * use stays while the ones nobody asks for age out: LRU-like, at O(1) per lookup with no list to
 * maintain. Holds between capacity/2 and capacity entries once full.
 */
export function createRecentMap<K, V>(capacity: number): RecentMap<K, V> {
  const half = Math.max(1, Math.floor(capacity / 2));
  let young = new Map<K, V>();
  let old = new Map<K, V>();
  const keep = (key: K, value: V) => {
    young.set(key, value);
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
  };
  return {
    get(key) {
      const recent = young.get(key);
      if (recent !== undefined) return recent;
      const aged = old.get(key);
      if (aged !== undefined) {
        old.delete(key);
        keep(key, aged);
      }
      return aged;
    },
    set: keep,
    delete(key) {
      young.delete(key);
      old.delete(key);
    },
  };
}
