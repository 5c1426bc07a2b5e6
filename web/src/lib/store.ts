import { useSyncExternalStore } from 'react';

/** A minimal observable value for state shared across pages (the Create draft, the task cards). */
export interface Store<T> {
  get(): T;
  set(next: T | ((current: T) => T)): void;
  subscribe(listener: () => void): () => void;
}

/**
 * Creates a store; with `persistKey` the value survives a reload of the tab (sessionStorage), or
 * with `storage: 'local'` the browser's other tabs and restarts too (localStorage).
 */
export function createStore<T>(
  initial: T,
  persistKey?: string,
  storage: 'session' | 'local' = 'session',
): Store<T> {
  let value = initial;
  const kept = () => (storage === 'local' ? localStorage : sessionStorage);
  if (persistKey) {
    try {
      const saved = kept().getItem(persistKey);
      if (saved) value = { ...initial, ...(JSON.parse(saved) as T) };
    } catch {
      // Storage may be unavailable (private mode): the value just does not survive a reload.
    }
  }
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      value = typeof next === 'function' ? (next as (current: T) => T)(value) : next;
      if (persistKey) {
        try {
          kept().setItem(persistKey, JSON.stringify(value));
        } catch {
          // See above.
        }
      }
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Reads a store in a component, re-rendering when it changes. */
export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}
