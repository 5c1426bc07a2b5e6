import { createAssetsRepository } from './capabilities/assets/index.js';
import { createResponses } from './capabilities/responses/index.js';
import { bindSealsToRows, buildAccounts } from './compose-accounts.js';
import { buildAlerts } from './compose-alerts.js';
import { buildAudit } from './compose-audit.js';
import { buildCatalog } from './compose-catalog.js';
import {
  buildGenerations,
  buildGenerationsStore,
  buildIdempotency,
  buildUploads,
} from './compose-generations.js';
import { buildLifecycle } from './compose-lifecycle.js';
import { buildReadModels } from './compose-reads.js';
import {
  buildCapacity,
  buildEngine,
  buildTaskFeed,
  buildTaskReads,
  buildTaskStore,
} from './compose-tasks.js';
import { buildUsage, startTierPolicies } from './compose-usage.js';
import { buildWebhooks } from './compose-webhooks.js';
import {
  type CoreOverrides,
  type CoreResources,
  closeCoreResources,
  openCoreResources,
} from './core-resources.js';
import type { Config } from './infra/config/config.js';
import { buildKeyPools } from './key-pools.js';

/** What a test may replace of the core's side effects (the parameter of createCore). */
export type { CoreOverrides };

/**
 * Builds every capability from the config: the composition root shared by the server and the CLI.
 * Each step builds one capability over the shared resources (and the capabilities built before it);
 * the core exposes the services, and the resources only as `resources` (see CoreResources).
 */
export async function createCore(config: Config, overrides: CoreOverrides = {}) {
  const resources = await openCoreResources(config, overrides);
  const audit = buildAudit(resources);
  // Alerts hear each upstream's breaker and each key taken out (alerts are built below).
  const { catalog, providers, catalogVersions } = await buildCatalog(resources, overrides.providers, {
    audit,
    onBreakerChange: (change) => alerts.breakerChanged(change),
  });
  const capacity = buildCapacity(resources);
  // Pools of upstream keys per provider (the environment's key among them, named `env`), in the store.
  // A key taken out calls back the tasks parked on its pools and wakes the engine (built below).
  const keyPools = await buildKeyPools(resources, {
    deploymentKeys: providers.deploymentKeys,
    poolStates: () => capacity.states(),
    wakeParked: async (pattern) => void ((await tasks.wakeParked(pattern)) > 0 && engine.wake()),
    onTakenOut: (out) => alerts.keyTakenOut(out),
  });
  const accounts = buildAccounts(resources, { catalog, providers, keyPools });
  const assets = createAssetsRepository(resources);
  const usage = buildUsage(resources, catalog);
  await startTierPolicies({ ...resources, catalog }, usage.tierPolicies, audit);
  const generationsRepository = buildGenerationsStore(resources);
  // The webhooks' outbox is written in each task's final write (webhooks are built below).
  const { tasks, taskMetrics } = buildTaskStore(resources, {
    generationsRepository,
    usageRepository: usage.usageRepository,
    outbox: { recordFinished: (trx, task) => webhooks.recordFinished(trx, task) },
  });
  const { idempotency, housekeeping: others } = buildIdempotency(resources);
  const parts = { ...accounts, ...usage, generationsRepository, others, queue: () => taskReads.queue };
  const { lifecycle, housekeeping } = buildLifecycle(resources, parts);
  const uploads = buildUploads(resources, assets);
  const webhooks = buildWebhooks(resources);
  const alerts = buildAlerts(resources, { budgets: usage.budgets });
  await bindSealsToRows(resources, webhooks);
  const taskEvents = buildTaskFeed(resources, tasks);
  const engine = buildEngine(resources, {
    ...{ catalog, providers, tasks, taskEvents, taskMetrics, capacity, assets, keyPools, webhooks, alerts },
    keys: accounts.accounts.keyResolver,
  });
  const taskReads = buildTaskReads(resources, { catalog, tasks, engine, capacity });
  const generations = buildGenerations(resources, {
    ...{ catalog, providers, generationsRepository, idempotency, uploads, engine, webhooks, assets, tasks },
    ...{ keys: accounts.accounts.keyResolver, admission: usage.admission, budgets: usage.budgets },
  });
  const reads = buildReadModels(resources, { generationsRepository, tasks });
  // A new catalog version may raise a limit: the parked tasks ask their pools again at once.
  catalog.onChange(() => void tasks.wakeParked('%').then((woken) => woken > 0 && engine.wake()));

  return {
    ...sharedOf(resources),
    catalog,
    /** The catalog's versions in the store: history, edits (admin API, console), the refresh. */
    catalogVersions,
    providers,
    ...accounts,
    assets,
    tasks,
    ...taskReads,
    taskEvents,
    idempotency,
    uploads,
    generations,
    ...reads,
    engine,
    capacity, // upstream capacity pools, shared through the store (the operator console reads their state)
    keyPools, // the pools of upstream keys: their store (CLI, console), each key's state, the engine's choice
    webhooks,
    /** Alert rules, their detection and delivery (the operator console, the worker role). */
    alerts,
    metrics: metricsOf(resources, taskMetrics),
    usage: usage.usage,
    budgets: usage.budgets,
    /** The tier policies in force on this node, re-read from the store; edited through the admin API. */
    tierPolicies: usage.tierPolicies,
    /** The audit log: every change made through the admin API, the console or the CLI (append-only). */
    audit,
    /** Stored responses of the OpenAI Responses API, per account (`/v1/responses`). */
    responses: createResponses(resources),
    housekeeping,
    lifecycle, // deleted works, expiry, unused files removed from storage (operations.md, Data lifecycle)
    /** Stops the engine and the webhook worker (if running) and closes the database. */
    close: (graceMs?: number) =>
      closeInOrder(resources, graceMs, {
        ...{ tierPolicies: usage.tierPolicies, catalogVersions, housekeeping, engine },
        ...{ webhooks, alerts, taskEvents },
      }),
  };
}

interface Stoppable {
  stop(graceMs?: number): unknown;
}

/** Stops what runs, the engine before the outboxes its last task writes may still fill, then closes the store. */
async function closeInOrder(
  resources: CoreResources,
  graceMs: number | undefined,
  parts: Record<
    'tierPolicies' | 'catalogVersions' | 'housekeeping' | 'engine' | 'webhooks' | 'alerts',
    Stoppable
  > & {
    taskEvents: { close(): Promise<void> };
  },
) {
  await parts.tierPolicies.stop();
  await parts.catalogVersions.stop();
  await parts.housekeeping.stop();
  await parts.engine.stop(graceMs);
  await parts.webhooks.stop(graceMs);
  await parts.alerts.stop(graceMs);
  await parts.taskEvents.close();
  await closeCoreResources(resources);
}

/** This node's Prometheus registry (GET /metrics), and what the HTTP edges record in it. */
function metricsOf<Streams>(resources: CoreResources, taskMetrics: { eventStreams: Streams }) {
  return {
    registry: resources.metricsRegistry,
    ...resources.requestMetrics,
    eventStreams: taskMetrics.eventStreams,
  };
}

/** What the core shows of its resources beside the capabilities' services. */
function sharedOf(resources: CoreResources) {
  const { config, clock, logger, blobs, publicUrls, secrets } = resources;
  return {
    config,
    clock,
    logger,
    blobs,
    /** Atelier's own file URLs ↔ blob keys (the edges map result URLs back to their bytes). */
    publicUrls,
    secrets, // seals secrets at rest with the master key (upstream keys, webhook and OAuth client secrets)
    stateIdKey: resources.keyFor('state-ids'), // authenticates MCP task ids and OpenAI async ids
    /**
     * The shared resources the capabilities were built over, the database among them. Not a
     * service: the edges that keep their own tables (the website's sessions, the health check) and
     * tests reach the store here.
     */
    resources,
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
