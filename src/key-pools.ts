import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ProviderKeyWire } from './base/contract/admin-provider-keys.js';
import { scrapeRead } from './base/observability/metrics.js';
import type { Clock } from './base/runtime/clock.js';
import type { SecretBox } from './base/secrets/secret-box.js';
import {
  createProviderKeyPool,
  createProviderKeyStore,
  type ProviderKeyStore,
  type ProviderKeyView,
  type RecheckPolicy,
} from './capabilities/accounts/index.js';
import type { PoolState } from './capabilities/tasks/index.js';
import { spendByUpstreamKey } from './capabilities/tasks/index.js';
import type { CoreResources } from './core-resources.js';
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

/** A pooled key as the console shows it: its row, its pool's figures and its spend (never the key). */
function keyWireOf(view: ProviderKeyView, pools: PoolState[], spend: Map<string, number>): ProviderKeyWire {
  return {
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
  };
}

/** Reads every key of every pool with its pool's figures and its last 30 days' spend. */
function keyStatesReader(deps: {
  store: ProviderKeyStore;
  db: Db;
  clock: Clock;
  poolStates(): Promise<PoolState[]>;
}): () => Promise<ProviderKeyWire[]> {
  return async () => {
    const [views, pools, spend] = await Promise.all([
      deps.store.list(),
      deps.poolStates(),
      spendByUpstreamKey(deps.db, deps.clock.now() - SPEND_DAYS * 86_400_000),
    ]);
    return views.map((view) => keyWireOf(view, pools, spend));
  };
}

/** The count of keys taken out of service on this node (the pool increments it). */
function takenOutCounter(registry: Registry) {
  return new Counter({
    name: 'atelier_upstream_key_taken_out_total',
    help: 'Pooled upstream keys taken out of service by an answer (invalid_key, no_quota), on this node',
    labelNames: ['provider', 'key_name', 'reason'] as const,
    registers: [registry],
  });
}

/** One gauge per key, read at each scrape from the keys' states (the deployment's, as every node sees it). */
function keyGauge(
  registry: Registry,
  read: () => Promise<ProviderKeyWire[]>,
  [name, help, value]: [string, string, (key: ProviderKeyWire) => number | null],
) {
  return new Gauge({
    name,
    help,
    labelNames: ['provider', 'key_name'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const key of await read()) {
        const v = value(key);
        if (v !== null) this.set({ provider: key.provider, key_name: key.name }, v);
      }
    },
  });
}

/** The pooled keys' gauges: in service, capacity, calls in flight, refusals, spend. */
const KEY_GAUGES: [string, string, (key: ProviderKeyWire) => number | null][] = [
  [
    'atelier_upstream_key_in_service',
    'Whether a pooled upstream key serves calls (1) or is disabled or taken out (0)',
    (key) => (key.status === 'in_service' ? 1 : 0),
  ],
  [
    'atelier_upstream_key_capacity',
    "Calls at once a pooled key's pool takes: its limit, else the learned one (absent while none)",
    (key) => key.capacity,
  ],
  ['atelier_upstream_key_calls_in_flight', "Calls on a pooled key's pool now, all nodes", (k) => k.in_flight],
  [
    'atelier_upstream_key_refusals',
    'Calls the upstream refused on a pooled key, all nodes',
    (k) => k.refusals,
  ],
  [
    'atelier_upstream_key_spend_micros',
    "What a pooled key's completed tasks cost over the last 30 days (micro-USD)",
    (key) => key.spend_micros,
  ],
];

/** What the key pools are built from (the accounts capability's store and pool, the tasks' capacity). */
export interface KeyPoolsDeps {
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
  /** A key was taken out of its pool by this node (alerts); never the key itself. */
  onTakenOut?(out: {
    provider: string;
    keyId: string;
    keyName: string;
    reason: string;
    message: string;
  }): void;
  recheck?: RecheckPolicy | undefined;
}

/**
 * The deployment's pools of upstream keys, built for the core: the store (CLI, console), the
 * engine's key choice, each key's state with its pool's figures and spend (console), and its
 * metrics — gauges read from the store (the deployment's, as every node sees it) and the take-outs
 * counted on this node.
 */
export function createKeyPools(deps: KeyPoolsDeps) {
  const store = createProviderKeyStore(deps);
  const pool = createProviderKeyPool({
    store,
    clock: deps.clock,
    deploymentKeys: deps.deploymentKeys,
    logger: deps.logger.child({ component: 'key-pools' }),
    ...(deps.recheck ? { recheck: deps.recheck } : {}),
    metrics: { takenOut: takenOutCounter(deps.registry) },
    onTakenOut: async (key, answer) => {
      deps.onTakenOut?.({ provider: key.provider, keyId: key.id, keyName: key.name, ...answer });
      await deps.wakeParked(`${key.provider}/%/${key.poolKey}`);
    },
  });
  /** Every key of every pool with its pool's figures and its spend (never the key). */
  const states = keyStatesReader({ ...deps, store });
  const read = scrapeRead(states, [] as ProviderKeyWire[]);
  for (const gauge of KEY_GAUGES) keyGauge(deps.registry, read, gauge);
  return {
    store,
    pool,
    states,
    /** Makes the `env` key of each provider whose ATELIER_<PROVIDER>_API_KEY is set (at start). */
    syncEnvKeys: () => store.syncEnvKeys(deps.deploymentKeys),
  };
}

export type KeyPools = ReturnType<typeof createKeyPools>;

/**
 * The key pools over the core's resources, with the `env` key of each provider made (at start).
 * They sit in the composition root because they join two capabilities: the accounts' key store and
 * pool with the tasks' capacity states and spend.
 */
export async function buildKeyPools(
  { db, secrets, clock, logger, metricsRegistry }: CoreResources,
  links: Pick<KeyPoolsDeps, 'deploymentKeys' | 'poolStates' | 'wakeParked' | 'onTakenOut'>,
): Promise<KeyPools> {
  const keyPools = createKeyPools({ db, secrets, clock, logger, registry: metricsRegistry, ...links });
  await keyPools.syncEnvKeys();
  return keyPools;
}
