import { collectDefaultMetrics, Registry } from 'prom-client';

/** Latency buckets (seconds) of calls that take milliseconds to seconds: HTTP requests, upstream calls. */
export const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The node's Prometheus registry (prom-client), one per core, with the process and runtime
 * metrics; each capability registers its own metrics in it (tasks, capacity, providers, webhooks,
 * blobs, HTTP requests). Labels are low-cardinality on purpose — route templates, providers,
 * catalog models, outcomes — never ids, emails or URLs. Counters are per node (Prometheus sums
 * them across nodes); gauges read from the store are the deployment's (every node reports the same
 * value: aggregate them with max, not sum).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  // The event-loop delay is sampled every 100 ms, not prom-client's 10 ms: each sample wakes the
  // idle process, and 100 wake-ups a second were most of an idle node's CPU (0.10 → 0.04 s per 10 s
  // over 400,000 task rows). A stall still shows in full: it delays the sample that was due.
  collectDefaultMetrics({ register: registry, prefix: 'atelier_', eventLoopMonitoringPrecision: 100 });
  return registry;
}

/**
 * A store read shared by the gauges collected in one scrape: `read` runs at most once a second,
 * and a failed read answers `onFailure` (so a gauge can keep its last value, or show nothing).
 */
export function scrapeRead<T, F>(read: () => Promise<T>, onFailure: F): () => Promise<T | F> {
  let last: { at: number; value: Promise<T | F> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at > 1000) {
      last = { at: now, value: read().catch(() => onFailure) };
    }
    return last.value;
  };
}
