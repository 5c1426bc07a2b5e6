import { readFile } from 'node:fs/promises';
import type { AccountsService } from './capabilities/accounts/index.js';
import type { AssetsRepository } from './capabilities/assets/index.js';
import { type Catalog, replacementOf, routesOf } from './capabilities/catalog/index.js';
import type { ProviderRegistry } from './capabilities/providers/index.js';
import { measuredProviders } from './capabilities/providers/index.js';
import type { OnTaskFinished } from './capabilities/tasks/index.js';
import {
  createCapacityMetrics,
  createInProcessTaskFeed,
  createPartialFrameReads,
  createPostgresTaskFeed,
  createTaskEngine,
  createTaskMetrics,
  createTaskQueue,
  createTasksRepository,
  createTasksService,
  createTaskTurns,
  createUpstreamCapacity,
  createWaitPlaces,
  routeLimits,
  type TaskChangeFeed,
  type TaskEngine,
  type TaskMetrics,
  type TasksRepository,
  toTaskRecord,
  type UpstreamCapacity,
  unfinishedByProvider,
} from './capabilities/tasks/index.js';
import type { UsageRepository } from './capabilities/usage/index.js';
import type { CoreResources } from './core-resources.js';
import type { KeyPools } from './key-pools.js';
import type { GenerationsRepository } from './use-cases/generations/index.js';
import { listPendingCards } from './use-cases/read-models/index.js';

/** The routes' capacity limits of the catalog in force (worked out again when a new version comes in). */
function liveLimits(catalog: Catalog) {
  let seen = catalog.models;
  let limitsOf = routeLimits(seen);
  return (routeId: string) => {
    if (catalog.models !== seen) {
      seen = catalog.models;
      limitsOf = routeLimits(seen);
    }
    return limitsOf(routeId);
  };
}

/** Upstream capacity per (provider, upstream model, key), shared by every worker on the database. */
export function buildCapacity({ db, clock, timing }: CoreResources): UpstreamCapacity {
  return createUpstreamCapacity({
    db,
    clock,
    ...(timing.capacityWindowMs ? { windowMs: timing.capacityWindowMs } : {}),
  });
}

/**
 * The tasks' store and its metrics. A task's final write also counts its usage, moves the
 * account's history version and writes the webhooks' outbox, in its transaction (once per task).
 */
export function buildTaskStore(
  { db, clock, metricsRegistry }: CoreResources,
  parts: {
    generationsRepository: GenerationsRepository;
    usageRepository: UsageRepository;
    /** The webhooks' outbox: their deliveries are built from it, not by reading tasks. */
    outbox: { recordFinished: OnTaskFinished };
  },
) {
  const { generationsRepository, usageRepository, outbox } = parts;
  const tasks = createTasksRepository({
    db,
    clock,
    // The engine's leased tasks carry their generations' requests, read by the generations capability.
    requestsOf: generationsRepository.requestsOf,
    // The creations read model joins tasks with their generations for the creation view's cards.
    pendingCards: (accountId, options) => listPendingCards(db, accountId, options),
    onFinished: async (trx, task) => {
      await usageRepository.recordFinished(trx, task);
      if (task.status === 'completed') await generationsRepository.taskCompleted(trx, task.account_id);
      await outbox.recordFinished(trx, task);
    },
  });
  return { tasks, taskMetrics: createTaskMetrics(metricsRegistry, tasks.queueSnapshot) };
}

/** Task changes reach the event stream and long-polls of every node: LISTEN/NOTIFY on PostgreSQL. */
export function buildTaskFeed(
  { db, listener, logger }: CoreResources,
  tasks: TasksRepository,
): TaskChangeFeed {
  if (!listener) return createInProcessTaskFeed();
  return createPostgresTaskFeed({
    db,
    listener,
    logger: logger.child({ component: 'task-feed' }),
    load: async (accountId, taskId) => {
      const row = await tasks.findForAccount(accountId, taskId);
      return row && toTaskRecord(row);
    },
  });
}

/** What the engine works with, beside the resources. */
export interface EngineParts {
  catalog: Catalog;
  providers: ProviderRegistry;
  tasks: TasksRepository;
  taskEvents: TaskChangeFeed;
  taskMetrics: TaskMetrics;
  capacity: UpstreamCapacity;
  assets: AssetsRepository;
  keys: AccountsService['keyResolver'];
  keyPools: KeyPools;
  webhooks: { onTaskChanged: (change: Parameters<TaskChangeFeed['publish']>[0]) => void };
  /** Alerts hear every task that ends (budgets crossed, a route's failure rate). */
  alerts: { taskEnded(ended: { taskId: string; accountId: string; status: 'completed' | 'failed' }): void };
}

/** The task engine: leases tasks, calls the upstreams within their capacity, stores the results. */
export function buildEngine(resources: CoreResources, parts: EngineParts): TaskEngine {
  const { config, metricsRegistry, fetcher, timing } = resources;
  const { catalog, capacity, taskEvents, webhooks } = parts;
  return createTaskEngine({
    work: taskEvents,
    onTaskChanged: (change) => {
      taskEvents.publish(change);
      webhooks.onTaskChanged(change);
      const { status, task_id: taskId } = change.record;
      if (status === 'completed' || status === 'failed')
        parts.alerts.taskEnded({ taskId, accountId: change.accountId, status });
    },
    tasks: parts.tasks,
    assets: parts.assets,
    turns: createTaskTurns({ db: resources.db, clock: resources.clock }),
    capacity,
    limitsOf: liveLimits(catalog),
    capacityMetrics: createCapacityMetrics(metricsRegistry, capacity.snapshot),
    providers: measuredProviders(parts.providers, metricsRegistry, (provider, upstreamModel) =>
      replacementOf(catalog, provider, upstreamModel),
    ),
    metrics: parts.taskMetrics,
    routesOf: (modelId) => {
      const model = catalog.get(modelId);
      return model ? routesOf(model) : [];
    },
    keys: parts.keys,
    keyPool: parts.keyPools.pool,
    blobs: resources.blobs,
    clock: resources.clock,
    ids: resources.ids,
    processOwner: resources.processOwner,
    logger: resources.logger.child({ component: 'task-engine' }),
    tracing: resources.tracing,
    blobUrl: resources.publicUrls.urlOf,
    async downloadImage(url, signal) {
      const file = await fetcher.fetchToFile(url, { subject: 'the result URL', signal });
      try {
        return await readFile(file.path);
      } finally {
        await file.cleanup();
      }
    },
    options: {
      concurrency: config.workerConcurrency,
      leaseMs: timing.leaseMs,
      idlePollMs: timing.idlePollMs,
      maxAttempts: config.submitMaxAttempts,
      upstreamTimeoutMs: config.upstreamTimeoutMs,
      taskDeadlineMs: config.taskDeadlineMs,
    },
  });
}

/** What accounts read of their tasks, and what the operator console counts. */
export function buildTaskReads(
  { db, clock, blobs }: CoreResources,
  parts: { catalog: Catalog; tasks: TasksRepository; engine: TaskEngine; capacity: UpstreamCapacity },
) {
  // Where parked tasks stand (place, start estimate), computed for an account's reads.
  const places = createWaitPlaces({
    db,
    clock,
    windowMs: parts.capacity.windowMs,
    limitsOf: liveLimits(parts.catalog),
  });
  const taskService = createTasksService({ tasks: parts.tasks, engine: parts.engine, places });
  return {
    /** Reads and cancel of an account's tasks (routes, OpenAI wait, website); owns the final-record cache. */
    taskService,
    /** The partial frames of a task still rendering (the website's previews). */
    previews: createPartialFrameReads({ blobs, partialFrames: taskService.partialFrames }),
    /** Unfinished tasks per provider (the operator console). */
    unfinishedTasks: () => unfinishedByProvider(db),
    /** The operator's queue: what waits per route and pool, and why; cancels through the engine. */
    queue: createTaskQueue({
      db,
      clock,
      capacity: parts.capacity,
      engine: parts.engine,
      limitsOf: routeLimits(parts.catalog.models),
    }),
  };
}
