import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from './latency-histogram.js';

/** What the queue looks like now (the whole deployment's, read from the store at scrape time). */
export interface QueueSnapshot {
  /** Unfinished tasks. */
  depth: number;
  /** Seconds the longest-due unfinished task has been due (0 when none is). */
  oldestDueSeconds: number;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_SECONDS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200];

/**
 * The node's Prometheus metrics (prom-client), one registry per core. Labels are low-cardinality
 * on purpose — route templates, providers, catalog models, outcomes — never ids, emails or URLs.
 * Counters are per node (Prometheus sums them across nodes); the queue gauges are the
 * deployment's (every node reports the same value: aggregate them with max, not sum).
 */
export function createMetrics() {
  const registry = new Registry();
  // The event-loop delay is sampled every 100 ms, not prom-client's 10 ms: each sample wakes the
  // idle process, and 100 wake-ups a second were most of an idle node's CPU (0.10 → 0.04 s per 10 s
  // over 400,000 task rows). A stall still shows in full: it delays the sample that was due.
  collectDefaultMetrics({ register: registry, prefix: 'atelier_', eventLoopMonitoringPrecision: 100 });
  const registers = [registry];
  let queueProbe: (() => Promise<QueueSnapshot>) | undefined;
  let providerProbe: (() => Array<{ provider: string; open: boolean }>) | undefined;
  // One store read per scrape for both queue gauges (they are collected together).
  let queueRead: { at: number; snapshot: Promise<QueueSnapshot | undefined> } | undefined;
  // A failed read leaves the gauges at their last value rather than reporting an empty queue.
  const readQueue = (): Promise<QueueSnapshot | undefined> => {
    const now = Date.now();
    if (queueRead === undefined || now - queueRead.at > 1000) {
      const snapshot = queueProbe?.().catch(() => undefined) ?? Promise.resolve(undefined);
      queueRead = { at: now, snapshot };
    }
    return queueRead.snapshot;
  };

  return {
    registry,
    // Every request records here: series resolved once per route, method and status (see LatencyHistogram).
    httpRequestSeconds: new LatencyHistogram(
      'atelier_http_request_duration_seconds',
      'HTTP requests by method, route template and status, with their latency',
      SECONDS,
      registers,
    ),
    tasksFinished: new Counter({
      name: 'atelier_tasks_finished_total',
      help: 'Tasks that reached a final state on this node, by catalog model, provider and status',
      labelNames: ['model', 'provider', 'status'] as const,
      registers,
    }),
    taskQueuedSeconds: new Histogram({
      name: 'atelier_task_queued_seconds',
      help: 'Time from a task being created to its start upstream (in_progress)',
      labelNames: ['provider'] as const,
      buckets: TASK_SECONDS,
      registers,
    }),
    taskResultSeconds: new Histogram({
      name: 'atelier_task_duration_seconds',
      help: 'Time from a task being created to its final state, by provider and status',
      labelNames: ['provider', 'status'] as const,
      buckets: TASK_SECONDS,
      registers,
    }),
    upstreamCallSeconds: new Histogram({
      name: 'atelier_upstream_call_duration_seconds',
      help: 'Upstream calls (submit, poll) by provider and outcome (ok, retry, failed) with the failure cause',
      labelNames: ['provider', 'phase', 'outcome', 'cause'] as const,
      buckets: SECONDS,
      registers,
    }),
    upstreamFallbacks: new Counter({
      name: 'atelier_upstream_fallbacks_total',
      help: "Tasks moved to a model's next upstream route after a retryable submit failure",
      labelNames: ['from', 'to'] as const,
      registers,
    }),
    tasksFailedModelMissing: new Counter({
      name: 'atelier_tasks_failed_model_missing_total',
      help: 'Tasks failed because the upstream answered that their model does not exist (shut down or renamed)',
      labelNames: ['provider', 'upstream_model'] as const,
      registers,
    }),
    upstreamBreakerOpen: new Gauge({
      name: 'atelier_upstream_circuit_open',
      help: '1 while the circuit breaker of a provider fails submits fast (open or half-open), else 0',
      labelNames: ['provider'] as const,
      registers,
      collect() {
        for (const { provider, open } of providerProbe?.() ?? []) this.set({ provider }, open ? 1 : 0);
      },
    }),
    webhookAttempts: new Counter({
      name: 'atelier_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, retrying, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    eventStreams: new Gauge({
      name: 'atelier_event_streams',
      help: 'Open task event streams (SSE) on this node',
      registers,
    }),
    blobBytesWritten: new Counter({
      name: 'atelier_blob_bytes_written_total',
      help: 'Bytes written to blob storage, by prefix (uploads, results)',
      labelNames: ['prefix'] as const,
      registers,
    }),
    queueDepth: new Gauge({
      name: 'atelier_queue_depth',
      help: 'Unfinished tasks in the whole deployment (read from the store when scraped)',
      registers,
      async collect() {
        const queue = await readQueue();
        if (queue) this.set(queue.depth);
      },
    }),
    queueOldestDue: new Gauge({
      name: 'atelier_queue_oldest_due_seconds',
      help: 'How long the longest-due unfinished task has been due, in seconds (0 when none is)',
      registers,
      async collect() {
        const queue = await readQueue();
        if (queue) this.set(queue.oldestDueSeconds);
      },
    }),
    /** Which providers' circuits are open (set by the core over the provider registry). */
    probeProviders(probe: () => Array<{ provider: string; open: boolean }>) {
      providerProbe = probe;
    },
    /** Where the queue gauges read from (the tasks repository, set by the core). */
    probeQueue(probe: () => Promise<QueueSnapshot>) {
      queueProbe = probe;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
