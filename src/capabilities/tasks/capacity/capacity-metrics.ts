import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { scrapeRead } from '../../../base/observability/metrics.js';
import type { CapacityMetrics } from './capacity-gate.js';
import type { PoolSnapshot } from './upstream-capacity.js';

const WAIT_SECONDS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1200];

/**
 * Upstream capacity in Prometheus, per provider, upstream model and key hash: the learned limit,
 * calls in flight and tasks waiting (the deployment's, from the store), refused calls and the time
 * tasks waited for a slot (this node's).
 */
export function createCapacityMetrics(
  registry: Registry,
  probe: () => Promise<PoolSnapshot[]>,
): CapacityMetrics {
  const registers = [registry];
  const labelNames = ['provider', 'upstream_model', 'key'] as const;
  const pools = scrapeRead(probe, []);
  const gauge = (name: string, help: string, value: (pool: PoolSnapshot) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        for (const pool of await pools()) {
          const v = value(pool);
          if (v !== null)
            this.set({ provider: pool.provider, upstream_model: pool.upstreamModel, key: pool.key }, v);
        }
      },
    });
  gauge(
    'atelier_upstream_capacity_learned_limit',
    'Calls in flight a pool takes, as learned from its refusals (absent while no refusal was seen)',
    (pool) => pool.learnedLimit,
  );
  gauge(
    'atelier_upstream_calls_in_flight',
    'Upstream calls in flight on a pool, all nodes',
    (p) => p.inFlight,
  );
  gauge('atelier_upstream_tasks_waiting', 'Tasks parked waiting for a slot of a pool', (p) => p.waiting);
  return {
    callsRefused: new Counter({
      name: 'atelier_upstream_calls_refused_total',
      help: 'Upstream calls refused with a rate limit (429, RESOURCE_EXHAUSTED) on this node',
      labelNames: ['provider', 'key'] as const,
      registers,
    }),
    secondsWaited: new Histogram({
      name: 'atelier_upstream_capacity_wait_seconds',
      help: 'Time a task waited for a slot of its upstream pool before its call left',
      labelNames: ['provider', 'key'] as const,
      buckets: WAIT_SECONDS,
      registers,
    }),
  };
}
