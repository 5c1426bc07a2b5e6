import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ProviderKeyWire } from './base/contract/admin-provider-keys.js';
import { scrapeRead } from './base/observability/metrics.js';
import type { Clock } from './base/runtime/clock.js';
import type { SecretBox } from './base/secrets/secret-box.js';
import { createProviderKeyPool, type RecheckPolicy } from './capabilities/accounts/provider-key-pool.js';
import { createProviderKeyStore, type ProviderKeyView } from './capabilities/accounts/provider-keys.js';
import type { PoolState } from './capabilities/tasks/capacity/pool-states.js';
import { spendByUpstreamKey } from './capabilities/tasks/task-spend.js';
import type { Db } from './infra/store/database.js';

const SPEND_DAYS = 30;

/** A pooled key's pool figures, summed over the upstream models it served (one pool per model). */
function figuresOf(view: ProviderKeyView, pools: PoolState[]) {
  const mine = pools.filter((pool) => pool.provider === view.provider && pool.key === view.poolKey);
  const learned = mine.map((pool) => pool.learnedLimit).filter((limit): limit is number => limit !== null);
  return {
    capacity: view.maxInFlight ?? (learned.length > 0 ? Math.min(...learned) : null),
    in_flight: mine.reduce((sum, pool) => sum + pool.inFlight, 0),
    waiting: mine.reduce((sum, pool) => sum + pool.waiting, 0),
  };
}

/**
 * The deployment's pools of upstream keys, built for the core: the store (CLI, console), the
 * engine's key choice, each key's state with its pool's figures and spend (console), and its
 * metrics — gauges read from the store (the deployment's, as every node sees it) and the take-outs
 * counted on this node.
 */
export function createKeyPools(deps: {
  db: Db;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  deploymentKeys: Record<string, string | undefined>;
  /** Every capacity pool's state (the capacity capability's read). */
  poolStates(): Promise<PoolState[]>;
  /** A key was taken out: call back the tasks parked on its pools (by pattern) and wake the workers. */
  wakeParked(poolPattern: string): Promise<void>;
  recheck?: RecheckPolicy | undefined;
}) {
  const { db, clock, registry } = deps;
  const store = createProviderKeyStore(deps);
  const registers = [registry];
  const pool = createProviderKeyPool({
    store,
    clock,
    deploymentKeys: deps.deploymentKeys,
    logger: deps.logger.child({ component: 'key-pools' }),
    ...(deps.recheck ? { recheck: deps.recheck } : {}),
    metrics: {
      takenOut: new Counter({
        name: 'atelier_upstream_key_taken_out_total',
        help: 'Pooled upstream keys taken out of service by an answer (invalid_key, no_quota), on this node',
        labelNames: ['provider', 'key_name', 'reason'] as const,
        registers,
      }),
    },
    onTakenOut: (key) => deps.wakeParked(`${key.provider}/%/${key.poolKey}`),
  });

  /** Every key of every pool with its pool's figures and its spend (never the key). */
  async function states(): Promise<ProviderKeyWire[]> {
    const [views, pools, spend] = await Promise.all([
      store.list(),
      deps.poolStates(),
      spendByUpstreamKey(db, clock.now() - SPEND_DAYS * 86_400_000),
    ]);
    return views.map((view) => ({
      id: view.id,
      provider: view.provider,
      name: view.name,
      source: view.source,
      project: view.project,
      weight: view.weight,
      max_in_flight: view.maxInFlight,
      enabled: view.enabled,
      status: view.status,
      out_since: view.outSince,
      recheck_at: view.recheckAt,
      last_error: view.lastError,
      last_error_at: view.lastErrorAt,
      pool: view.poolKey,
      ...figuresOf(view, pools),
      refusals: view.refusals,
      spend_micros: spend.get(view.id) ?? 0,
      created_at: view.createdAt,
      updated_at: view.updatedAt,
    }));
  }

  const read = scrapeRead(states, [] as ProviderKeyWire[]);
  const labelNames = ['provider', 'key_name'] as const;
  const gauge = (name: string, help: string, value: (key: ProviderKeyWire) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        for (const key of await read()) {
          const v = value(key);
          if (v !== null) this.set({ provider: key.provider, key_name: key.name }, v);
        }
      },
    });
  gauge(
    'atelier_upstream_key_in_service',
    'Whether a pooled upstream key serves calls (1) or is disabled or taken out (0)',
    (key) => (key.status === 'in_service' ? 1 : 0),
  );
  gauge(
    'atelier_upstream_key_capacity',
    "Calls at once a pooled key's pool takes: its limit, else the learned one (absent while none)",
    (key) => key.capacity,
  );
  gauge(
    'atelier_upstream_key_calls_in_flight',
    "Calls on a pooled key's pool now, all nodes",
    (k) => k.in_flight,
  );
  gauge(
    'atelier_upstream_key_refusals',
    'Calls the upstream refused on a pooled key, all nodes',
    (k) => k.refusals,
  );
  gauge(
    'atelier_upstream_key_spend_micros',
    "What a pooled key's completed tasks cost over the last 30 days (micro-USD)",
    (key) => key.spend_micros,
  );

  return {
    store,
    pool,
    states,
    /** Makes the `env` key of each provider whose ATELIER_<PROVIDER>_API_KEY is set (at start). */
    syncEnvKeys: () => store.syncEnvKeys(deps.deploymentKeys),
  };
}

export type KeyPools = ReturnType<typeof createKeyPools>;
