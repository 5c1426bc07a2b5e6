import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { scrapeRead } from '../../base/observability/metrics.js';

/** What the queue looks like now (the whole deployment's, read from the store at scrape time). */
export interface QueueSnapshot {
  /** Unfinished tasks. */
  depth: number;
  /** Seconds the longest-due unfinished task has been due (0 when none is). */
  oldestDueSeconds: number;
}

const TASK_SECONDS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200];

/**
 * The tasks' metrics: finished tasks, time queued and whole runs, fallbacks (this node's), open
 * event streams, and the queue gauges (the deployment's, read through `queue` when scraped).
 */
export function createTaskMetrics(registry: Registry, queue: () => Promise<QueueSnapshot>) {
  const registers = [registry];
  // One store read per scrape for both queue gauges (they are collected together); a failed read
  // leaves the gauges at their last value rather than reporting an empty queue.
  const readQueue = scrapeRead(queue, undefined);
  return {
    tasksFinished: new Counter({
      name: 'atelier_tasks_finished_total',
      help: 'Tasks that reached a final state on this node, by catalog model, provider and status',
      labelNames: ['model', 'provider', 'status'] as const,
      registers,
    }),
    spendMicros: new Counter({
      name: 'atelier_spend_micros_total',
      help: "What completed images cost on this node, in micro-dollars (USD), by upstream model and provider (their tasks' cost; failed ones cost nothing)",
      labelNames: ['model', 'provider'] as const,
      registers,
    }),
    absorbedMicros: new Counter({
      name: 'atelier_quote_absorbed_micros_total',
      help: "What upstreams billed beyond a quote's maximum on this node, in micro-dollars (USD): absorbed by the operator, not charged to the account",
      labelNames: ['model', 'provider'] as const,
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
    upstreamFallbacks: new Counter({
      name: 'atelier_upstream_fallbacks_total',
      help: "Tasks moved to a model's next upstream route after a retryable submit failure",
      labelNames: ['from', 'to'] as const,
      registers,
    }),
    eventStreams: new Gauge({
      name: 'atelier_event_streams',
      help: 'Open task event streams (SSE) on this node',
      registers,
    }),
    queueDepth: new Gauge({
      name: 'atelier_queue_depth',
      help: 'Unfinished tasks in the whole deployment (read from the store when scraped)',
      registers,
      async collect() {
        const snapshot = await readQueue();
        if (snapshot) this.set(snapshot.depth);
      },
    }),
    queueOldestDue: new Gauge({
      name: 'atelier_queue_oldest_due_seconds',
      help: 'How long the longest-due unfinished task has been due, in seconds (0 when none is)',
      registers,
      async collect() {
        const snapshot = await readQueue();
        if (snapshot) this.set(snapshot.oldestDueSeconds);
      },
    }),
  };
}

export type TaskMetrics = ReturnType<typeof createTaskMetrics>;
