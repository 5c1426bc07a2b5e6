import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { createStore, useStore } from '../../lib/store';
import type { TaskEstimates } from '../../lib/types';

type Estimate = TaskEstimates['estimates'][number];

/** How long the account's recent tasks took per model and size (GET /web/api/tasks/estimates). */
const estimatesStore = createStore<Estimate[]>([]);

/**
 * The median duration of the account's recent completed tasks of a model and size, read again
 * whenever `completed` (how many cards are done) changes; undefined when none is known.
 */
export function useEstimates(completed: number): (model: string, imageSize: string) => number | undefined {
  const estimates = useStore(estimatesStore);
  useEffect(() => {
    // Read once per change of what finished (the trigger): a finished task moves the median.
    void completed;
    let live = true;
    api
      .get<TaskEstimates>('/web/api/tasks/estimates')
      .then(({ estimates: fresh }) => {
        if (live) estimatesStore.set(fresh);
      })
      .catch(() => {
        // Without estimates the cards just do not say one.
      });
    return () => {
      live = false;
    };
  }, [completed]);
  return (model, imageSize) =>
    estimates.find((e) => e.model === model && e.imageSize === imageSize)?.median_ms;
}

/** The time now, moving every second while `active` (the cards' elapsed time). */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}
