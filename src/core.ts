import { readFile } from 'node:fs/promises';
import pino, { type Logger } from 'pino';
import sharp from 'sharp';
import { createBoundedWorkPool } from './base/concurrency/bounded-work-pool.js';
import { createLogDestination } from './base/observability/log-destination.js';
import { createMetricsRegistry } from './base/observability/metrics.js';
import { type Clock, systemClock } from './base/runtime/clock.js';
import { type IdGenerator, randomIds } from './base/runtime/ids.js';
import { createSecretBox, deriveKey, loadOrCreateMasterKey } from './base/secrets/secret-box.js';
import { createBlobStore } from './blob-storage.js';
import { ACCOUNT_CHANGES_CHANNEL, createAccountChanges } from './capabilities/accounts/account-changes.js';
import { createAccountsRepository } from './capabilities/accounts/accounts-repository.js';
import { createAccountsService } from './capabilities/accounts/accounts-service.js';
import { createPasswordHashing } from './capabilities/accounts/password-hashing.js';
import { createUpstreamAccess } from './capabilities/accounts/upstream-access.js';
import { bindLegacyUpstreamKeys } from './capabilities/accounts/upstream-key-seals.js';
import { createAssetsRepository } from './capabilities/assets/assets-repository.js';
import { loadCatalog, routesOf } from './capabilities/catalog/catalog.js';
import { replacementOf } from './capabilities/catalog/catalog-check.js';
import { createCuration } from './capabilities/curation/curation-service.js';
import { createIdempotencyRepository } from './capabilities/idempotency/idempotency-repository.js';
import { measuredProviders } from './capabilities/providers/call-metrics.js';
import { createProviderRegistry, type ProviderRegistry } from './capabilities/providers/provider-registry.js';
import { createCapacityMetrics } from './capabilities/tasks/capacity/capacity-metrics.js';
import { routeLimits } from './capabilities/tasks/capacity/capacity-pool.js';
import { createUpstreamCapacity } from './capabilities/tasks/capacity/upstream-capacity.js';
import { createWaitPlaces } from './capabilities/tasks/capacity/wait-places.js';
import { createPostgresTaskFeed, TASK_FEED_CHANNELS } from './capabilities/tasks/postgres-task-feed.js';
import { createTaskEngine } from './capabilities/tasks/task-engine.js';
import { createInProcessTaskFeed } from './capabilities/tasks/task-events.js';
import { createTaskMetrics } from './capabilities/tasks/task-metrics.js';
import { toTaskRecord } from './capabilities/tasks/task-record.js';
import { createTasksRepository } from './capabilities/tasks/tasks-repository.js';
import { createTasksService } from './capabilities/tasks/tasks-service.js';
import { UPLOAD_NAMING_KEY_LABEL } from './capabilities/uploads/content-names.js';
import { createUploadQuota } from './capabilities/uploads/upload-quota.js';
import { createUploadsService } from './capabilities/uploads/uploads-service.js';
import { createBudgets } from './capabilities/usage/budgets.js';
import { createTierAdmission } from './capabilities/usage/tier-admission.js';
import { loadTierPolicies } from './capabilities/usage/tier-policies.js';
import { createUsageRepository } from './capabilities/usage/usage-repository.js';
import { createUsageService } from './capabilities/usage/usage-service.js';
import { createWebhookMetrics } from './capabilities/webhooks/webhook-metrics.js';
import { createWebhooksService } from './capabilities/webhooks/webhooks-service.js';
import { createRequestMetrics } from './edges/api/metrics-routes.js';
import type { BlobStore } from './infra/blobs/blob-store.js';
import { countedBlobStore } from './infra/blobs/counted-blob-store.js';
import { createPublicUrls } from './infra/blobs/public-urls.js';
import type { Config } from './infra/config/config.js';
import { createHousekeeping } from './infra/jobs/housekeeping.js';
import { createProcessOwner, type ProcessOwner } from './infra/jobs/process-owner.js';
import { createSafeFetcher, type SafeFetchOptions } from './infra/outbound/safe-fetcher.js';
import { type Db, dialectOf, openDatabase } from './infra/store/database.js';
import { createPostgresListener } from './infra/store/postgres-listener.js';
import { createSqliteReaders } from './infra/store/sqlite-readers.js';
import { createKeyPools } from './key-pools.js';
import {
  createGenerationsRepository,
  generationModel,
} from './use-cases/generations/generations-repository.js';
import { createGenerationsService } from './use-cases/generations/generations-service.js';
import { createCreationReads, listPendingCards } from './use-cases/read-models/creations.js';
import { createLibraryReads } from './use-cases/read-models/library.js';
import { createMarkedWorks } from './use-cases/read-models/marked-works.js';

export const LEASE_MS = 30_000;

/** Side effects a test may replace; everything else is built from the config. */
export interface CoreOverrides {
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  db?: Db;
  blobs?: BlobStore;
  providers?: ProviderRegistry;
  /** The safe fetcher's resolver (tests map fake public names to loopback servers). */
  lookup?: SafeFetchOptions['lookup'];
  idlePollMs?: number;
  /** How long a task lease lasts without a heartbeat (default LEASE_MS); tests of a dead worker shorten it. */
  leaseMs?: number;
  /** Time limit of one webhook delivery attempt (default 15 s). */
  webhookAttemptTimeoutMs?: number;
  /** Who this process is to claims it holds (tests play a second or a dead holder). */
  processOwner?: ProcessOwner;
  /** The per-minute window of upstream capacity (60 s; tests shorten it with their upstream's). */
  capacityWindowMs?: number;
}

/** Builds every capability from the config: the composition root shared by the server and the CLI. */
export async function createCore(config: Config, overrides: CoreOverrides = {}) {
  // One libvips thread per image operation: image work runs beside the API on the same cores.
  sharp.concurrency(1);
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? randomIds;
  const logger =
    overrides.logger ??
    pino(
      {
        level: config.logLevel,
        redact: {
          paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password'],
          censor: '[redacted]',
        },
      }, // One write per event-loop turn, never one per line; flushed on exit and crash.
      createLogDestination(1),
    );
  const db = overrides.db ?? (await openDatabase(config.databaseUrl));
  // One Prometheus registry per core; each capability registers its own metrics in it.
  const metricsRegistry = createMetricsRegistry();
  const requestMetrics = createRequestMetrics(metricsRegistry);
  const blobs = countedBlobStore(overrides.blobs ?? (await createBlobStore(config)), metricsRegistry);
  const masterKey = loadOrCreateMasterKey(config.dataDir, config.masterKey);
  const secrets = createSecretBox(masterKey);
  const providers = overrides.providers ?? createProviderRegistry({ config, clock });
  const catalog = loadCatalog(config.catalogPath, providers.names());
  providers.configure?.(catalog.models);

  const publicUrls = createPublicUrls(config.publicBaseUrl);
  const { urlOf: blobUrl, keyOf: blobKeyOfUrl } = publicUrls;

  // PostgreSQL: one LISTEN connection per process, for task changes and account changes.
  const listener =
    dialectOf(db) === 'postgres'
      ? await createPostgresListener({
          connectionString: config.databaseUrl,
          channels: [...TASK_FEED_CHANNELS, ACCOUNT_CHANGES_CHANNEL],
          logger: logger.child({ component: 'notifications' }),
        })
      : undefined;
  const accountChanges = createAccountChanges(db, listener);
  // Pools of upstream keys per provider (the environment's key among them, named `env`), in the store.
  const keyPools = createKeyPools({
    ...{ db, secrets, clock, logger, registry: metricsRegistry, deploymentKeys: providers.deploymentKeys },
    poolStates: () => capacity.states(),
    wakeParked: async (pattern) => void ((await tasks.wakeParked(pattern)) > 0 && engine.wake()),
  });
  await keyPools.syncEnvKeys();
  const accountsRepository = createAccountsRepository({ db, clock, ids, changes: accountChanges });
  const accounts = createAccountsService({
    keyCache: { changes: accountChanges, clock },
    accounts: accountsRepository,
    secrets,
    deploymentKeys: providers.deploymentKeys,
    pooledKey: keyPools.pool.anyKey,
    passwords: createPasswordHashing({ options: config.resourceCaps.passwordHashes }),
  });
  const upstreamAccess = createUpstreamAccess({
    catalog,
    providers,
    keys: accounts.keyResolver,
    pooledKey: keyPools.pool.anyKey,
    ownKeyProviders: accounts.upstreamKeyProviders,
  });
  const assets = createAssetsRepository({ db, clock, ids });
  // Usage is counted, the account's history version moved and the webhooks' outbox written in the
  // transaction of each task's final write (exactly once per task).
  const usageRepository = createUsageRepository({ db, modelOf: generationModel });
  // SQLite answers on the event loop: searches read on their own threads (one per pool slot).
  const searchReaders =
    dialectOf(db) === 'sqlite' && !overrides.db && config.databaseUrl !== ':memory:'
      ? createSqliteReaders({ file: config.databaseUrl, count: config.resourceCaps.searches.concurrency })
      : undefined;
  const generationsRepository = createGenerationsRepository({
    db,
    clock,
    ids,
    searches: createBoundedWorkPool({
      ...config.resourceCaps.searches,
      busyMessage: 'Too many searches are running on this server; retry shortly',
      retryAfterMs: 1000,
    }),
    ...(searchReaders ? { readers: searchReaders } : {}),
  });
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
      // The webhooks' outbox: their deliveries are built from it, not by reading tasks.
      await webhooks.recordFinished(trx, task);
    },
  });
  const taskMetrics = createTaskMetrics(metricsRegistry, tasks.queueSnapshot);
  const modelIds = catalog.models.map((model) => model.id);
  const policies = loadTierPolicies(config.policyPath, modelIds);
  const admission = createTierAdmission({ policies, clock });
  const budgets = createBudgets({ db, clock });
  const usage = createUsageService({ db, usage: usageRepository, admission, budgets, clock });
  // Names this process in claims and leases, so a restart on the same host takes back its dead ones.
  const processOwner = overrides.processOwner ?? createProcessOwner();
  const idempotency = createIdempotencyRepository({
    db,
    clock,
    owner: processOwner,
    maxRecordsPerAccount: config.resourceCaps.idempotencyKeysPerAccount,
  });
  const fetcher = createSafeFetcher({
    allowedHosts: config.uploadAllowedHosts,
    ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
  });
  const uploads = createUploadsService({
    fetcher,
    blobs,
    assets,
    blobUrl,
    namingKey: deriveKey(masterKey, UPLOAD_NAMING_KEY_LABEL),
    quota: createUploadQuota({ db, clock, limits: config.resourceCaps.uploadsPerDay }),
  });

  const webhooks = createWebhooksService({
    onAttempt: createWebhookMetrics(metricsRegistry).onAttempt,
    db,
    clock,
    ids,
    secrets,
    fetcher,
    processOwner,
    logger: logger.child({ component: 'webhooks' }),
    options: {
      retryScheduleMs: config.webhookRetryScheduleMs,
      attemptTimeoutMs: overrides.webhookAttemptTimeoutMs ?? 15_000,
      idlePollMs: overrides.idlePollMs ?? 1000,
    },
  });
  // Secrets sealed before seals were bound to their row (issue 25) are bound once, at start.
  const boundSeals = (await bindLegacyUpstreamKeys(db, secrets)) + (await webhooks.bindLegacySecrets());
  if (boundSeals > 0) logger.info({ count: boundSeals }, 'bound sealed secrets to their rows');

  // Task changes reach the event stream and long-polls of every node: LISTEN/NOTIFY on PostgreSQL.
  const taskEvents = listener
    ? createPostgresTaskFeed({
        db,
        listener,
        logger: logger.child({ component: 'task-feed' }),
        load: async (accountId, taskId) => {
          const row = await tasks.findForAccount(accountId, taskId);
          return row && toTaskRecord(row);
        },
      })
    : createInProcessTaskFeed();
  // Upstream capacity per (provider, upstream model, key), shared by every worker on the database.
  const capacity = createUpstreamCapacity({
    db,
    clock,
    ...(overrides.capacityWindowMs ? { windowMs: overrides.capacityWindowMs } : {}),
  });
  const engine = createTaskEngine({
    work: taskEvents,
    onTaskChanged: (change) => {
      taskEvents.publish(change);
      webhooks.onTaskChanged(change);
    },
    tasks,
    assets,
    capacity,
    limitsOf: routeLimits(catalog.models),
    capacityMetrics: createCapacityMetrics(metricsRegistry, capacity.snapshot),
    providers: measuredProviders(providers, metricsRegistry, (provider, upstreamModel) =>
      replacementOf(catalog, provider, upstreamModel),
    ),
    metrics: taskMetrics,
    routesOf: (modelId) => {
      const model = catalog.get(modelId);
      return model ? routesOf(model) : [];
    },
    keys: accounts.keyResolver,
    keyPool: keyPools.pool,
    blobs,
    clock,
    ids,
    processOwner,
    logger: logger.child({ component: 'task-engine' }),
    blobUrl,
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
      leaseMs: overrides.leaseMs ?? LEASE_MS,
      idlePollMs: overrides.idlePollMs ?? 1000,
      maxAttempts: config.submitMaxAttempts,
      upstreamTimeoutMs: config.upstreamTimeoutMs,
      taskDeadlineMs: config.taskDeadlineMs,
    },
  });
  // Where parked tasks stand (place, start estimate), computed for an account's reads.
  const places = createWaitPlaces({
    db,
    clock,
    windowMs: capacity.windowMs,
    limitsOf: routeLimits(catalog.models),
  });
  const taskService = createTasksService({ tasks, engine, places });

  const generations = createGenerationsService({
    catalog,
    providers,
    keys: accounts.keyResolver,
    generations: generationsRepository,
    idempotency,
    uploads,
    blobs,
    engine,
    blobKeyOfUrl,
    vetCallbackUrl: webhooks.vetCallbackUrl,
    recordCallback: webhooks.recordCallback,
    admission,
    budgets,
    async referenceSize(accountId, blobKey) {
      const asset = await assets.findByBlobKey(accountId, blobKey);
      return asset && { width: asset.width, height: asset.height };
    },
    taskDeadlineMs: config.taskDeadlineMs,
    leaseMs: overrides.leaseMs ?? LEASE_MS,
    quotes: { key: deriveKey(masterKey, 'quotes'), clock }, // authenticates quote ids (POST /api/v1/quotes)
  });
  // The read models: generations with their tasks (history, saved works), assets with their generations (library).
  const curation = createCuration({ db, clock, ids, works: generationsRepository });
  const plainCreations = createCreationReads({ generations: generationsRepository, tasks, db });
  const creations = createMarkedWorks(plainCreations, curation);
  const library = createLibraryReads(db);

  const housekeeping = createHousekeeping(
    { purgeExpiredIdempotencyKeys: idempotency.purgeExpired },
    logger.child({ component: 'housekeeping' }),
  );

  return {
    config,
    clock,
    logger,
    db,
    blobs,
    catalog,
    providers,
    accounts,
    accountsRepository,
    /** How this process hears that accounts changed elsewhere (what its API-key cache trusts). */
    accountChanges,
    /** has_key and which providers take a key (the API's account status, the website's account page). */
    upstreamAccess,
    assets,
    tasks,
    /** Atelier's own file URLs ↔ blob keys (the edges map result URLs back to their bytes). */
    publicUrls,
    /** Reads and cancel of an account's tasks (routes, OpenAI wait, website); owns the final-record cache. */
    taskService,
    taskEvents,
    idempotency,
    uploads,
    generations,
    /** History pages and saved works: generations with their tasks (read model). */
    creations,
    /** The website's asset library: assets with their generations' prompts (read model). */
    library,
    /** Stars and collections of works (a mark moves the account's history version). */
    curation,
    engine,
    /** Upstream capacity pools, shared through the store (the operator console reads their state). */
    capacity,
    keyPools, // the pools of upstream keys: their store (CLI, console), each key's state, the engine's choice
    webhooks,
    secrets, // seals secrets at rest with the master key (upstream keys, webhook and OAuth client secrets)
    stateIdKey: deriveKey(masterKey, 'state-ids'), // authenticates MCP task ids and OpenAI async ids
    /** This node's Prometheus registry (GET /metrics), and what the HTTP edges record in it. */
    metrics: { registry: metricsRegistry, ...requestMetrics, eventStreams: taskMetrics.eventStreams },
    /** Images per account, day and model, and the tier policies' allowance. */
    usage,
    /** Spend budgets per account (CLI `accounts set-budget`, the operator console). */
    budgets,
    /** The tier policies in force (ATELIER_POLICY_FILE), as the operator console shows them. */
    tierPolicies: policies,
    /** Periodic clean-ups of the worker role: idempotency records past their 24 h. */
    housekeeping,
    /** Stops the engine and the webhook worker (if running) and closes the database. */
    async close(graceMs?: number) {
      await housekeeping.stop();
      await engine.stop(graceMs);
      // After the engine: its last task writes may still enqueue deliveries.
      await webhooks.stop(graceMs);
      await taskEvents.close();
      await listener?.close();
      await searchReaders?.close();
      await db.destroy();
    },
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
