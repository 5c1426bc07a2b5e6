import { createBoundedWorkPool } from './base/concurrency/bounded-work-pool.js';
import type { UpstreamKeyResolver } from './capabilities/accounts/index.js';
import type { AssetsRepository } from './capabilities/assets/index.js';
import type { Catalog } from './capabilities/catalog/index.js';
import { createIdempotencyRepository, type IdempotencyRepository } from './capabilities/idempotency/index.js';
import type { ProviderRegistry } from './capabilities/providers/index.js';
import type { TaskEngine, TasksRepository } from './capabilities/tasks/index.js';
import {
  createUploadQuota,
  createUploadsService,
  UPLOAD_NAMING_KEY_LABEL,
  type UploadsService,
} from './capabilities/uploads/index.js';
import type { Budgets, TierAdmission } from './capabilities/usage/index.js';
import type { WebhooksService } from './capabilities/webhooks/index.js';
import type { CoreResources } from './core-resources.js';
import { createHousekeeping } from './infra/jobs/housekeeping.js';
import {
  createGenerationsRepository,
  createGenerationsService,
  type GenerationsRepository,
} from './use-cases/generations/index.js';

/** Generations and their searches (on SQLite's reader threads when the store is a file). */
export function buildGenerationsStore({ db, clock, ids, config, searchReaders }: CoreResources) {
  return createGenerationsRepository({
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
}

/** Idempotency records of requests, and the worker's periodic purge of those past their 24 h. */
export function buildIdempotency({ db, clock, processOwner, config, logger }: CoreResources) {
  const idempotency = createIdempotencyRepository({
    db,
    clock,
    owner: processOwner,
    maxRecordsPerAccount: config.resourceCaps.idempotencyKeysPerAccount,
  });
  const housekeeping = createHousekeeping(
    { purgeExpiredIdempotencyKeys: idempotency.purgeExpired },
    logger.child({ component: 'housekeeping' }),
  );
  return {
    idempotency,
    /** Periodic clean-ups of the worker role: idempotency records past their 24 h. */
    housekeeping,
  };
}

/** Uploads: files by upload or by URL, named by their content, within the daily quota. */
export function buildUploads(resources: CoreResources, assets: AssetsRepository): UploadsService {
  const { db, clock, config } = resources;
  return createUploadsService({
    fetcher: resources.fetcher,
    blobs: resources.blobs,
    assets,
    blobUrl: resources.publicUrls.urlOf,
    namingKey: resources.keyFor(UPLOAD_NAMING_KEY_LABEL),
    quota: createUploadQuota({ db, clock, limits: config.resourceCaps.uploadsPerDay }),
  });
}

/** What a generate request is checked against and handed to. */
export interface GenerationParts {
  catalog: Catalog;
  providers: ProviderRegistry;
  keys: UpstreamKeyResolver;
  generationsRepository: GenerationsRepository;
  idempotency: IdempotencyRepository;
  uploads: UploadsService;
  engine: TaskEngine;
  webhooks: Pick<WebhooksService, 'vetCallbackUrl' | 'recordCallback'>;
  admission: Pick<TierAdmission, 'checkModel' | 'admitIn'>;
  budgets: Pick<Budgets, 'admitIn'>;
  assets: AssetsRepository;
  /** The tasks a refinement's parent is found among. */
  tasks: Pick<TasksRepository, 'findManyForAccount' | 'findByGenerations'>;
}

/** Generate requests: checked, priced, admitted, written with their tasks and handed to the engine. */
export function buildGenerations(resources: CoreResources, parts: GenerationParts) {
  const { config, timing, clock } = resources;
  const { assets, webhooks } = parts;
  return createGenerationsService({
    catalog: parts.catalog,
    providers: parts.providers,
    keys: parts.keys,
    generations: parts.generationsRepository,
    idempotency: parts.idempotency,
    uploads: parts.uploads,
    blobs: resources.blobs,
    engine: parts.engine,
    blobKeyOfUrl: resources.publicUrls.keyOf,
    vetCallbackUrl: webhooks.vetCallbackUrl,
    recordCallback: webhooks.recordCallback,
    admission: parts.admission,
    budgets: parts.budgets,
    parents: {
      findManyForAccount: parts.tasks.findManyForAccount,
      findByGenerations: parts.tasks.findByGenerations,
      ownedBy: parts.generationsRepository.ownedBy,
      isPurged: parts.generationsRepository.isPurged,
      settingsOf: parts.generationsRepository.settingsOf,
    },
    blobUrl: resources.publicUrls.urlOf,
    async referenceSize(accountId, blobKey) {
      const asset = await assets.findByBlobKey(accountId, blobKey);
      return asset && { width: asset.width, height: asset.height };
    },
    taskDeadlineMs: config.taskDeadlineMs,
    leaseMs: timing.leaseMs,
    quotes: { key: resources.keyFor('quotes'), clock }, // authenticates quote ids (POST /api/v1/quotes)
    tracing: resources.tracing,
  });
}
