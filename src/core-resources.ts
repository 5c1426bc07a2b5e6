import pino, { type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createLogDestination } from './base/observability/log-destination.js';
import { createMetricsRegistry } from './base/observability/metrics.js';
import { createTracing, type Tracing } from './base/observability/tracing.js';
import { type Clock, systemClock } from './base/runtime/clock.js';
import { type IdGenerator, randomIds } from './base/runtime/ids.js';
import {
  createSecretBox,
  deriveKey,
  loadOrCreateMasterKey,
  type SecretBox,
} from './base/secrets/secret-box.js';
import { createBlobStore } from './blob-storage.js';
import { ACCOUNT_CHANGES_CHANNEL } from './capabilities/accounts/index.js';
import type { ProviderRegistry } from './capabilities/providers/index.js';
import { TASK_FEED_CHANNELS } from './capabilities/tasks/index.js';
import { createRequestMetrics, type RequestMetrics } from './edges/api/metrics-routes.js';
import type { BlobStore } from './infra/blobs/blob-store.js';
import { countedBlobStore } from './infra/blobs/counted-blob-store.js';
import { createPublicUrls, type PublicUrls } from './infra/blobs/public-urls.js';
import { withRecentResults } from './infra/blobs/recent-results.js';
import type { Config } from './infra/config/config.js';
import { createProcessOwner, type ProcessOwner } from './infra/jobs/process-owner.js';
import { createSafeFetcher, type SafeFetcher, type SafeFetchOptions } from './infra/outbound/safe-fetcher.js';
import { type Db, dialectOf, openDatabase } from './infra/store/database.js';
import type { PostgresListener } from './infra/store/postgres-listener.js';
import { createSqliteReaders, type SqliteReaders } from './infra/store/sqlite-readers.js';

/** How long a task lease lasts without a heartbeat. */
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
  /** Tracing (default: from the config's OTLP endpoint, off without one). */
  tracing?: Tracing;
}

/**
 * What every capability is built over, made once per core: the store, time, ids, logs, metrics,
 * files, secrets and outbound calls. The composition root hands each capability's builder these;
 * the core's services never hand them out (the database above all), and only the HTTP edges that
 * keep their own tables (the website's sessions, the health check) and tests reach them, as
 * `core.resources`.
 */
export interface CoreResources {
  readonly config: Config;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly db: Db;
  /** PostgreSQL: the process's one LISTEN connection (task and account changes); none on SQLite. */
  readonly listener: PostgresListener | undefined;
  /** SQLite on a file: searches read on their own threads (one per search slot). */
  readonly searchReaders: SqliteReaders | undefined;
  /** One Prometheus registry per core; each capability registers its own metrics in it. */
  readonly metricsRegistry: Registry;
  /** What the HTTP edges record in the registry (registered with it, before anything else). */
  readonly requestMetrics: RequestMetrics;
  /** Traces of generations (OpenTelemetry over OTLP/HTTP); `noTracing` unless an endpoint is configured. */
  readonly tracing: Tracing;
  /** Files on disk or in the bucket, their bytes counted in the registry. */
  readonly blobs: BlobStore;
  /** Atelier's own file URLs ↔ blob keys. */
  readonly publicUrls: PublicUrls;
  /** Seals secrets at rest with the master key (upstream keys, webhook and OAuth client secrets). */
  readonly secrets: SecretBox;
  /** A key derived from the master key for one purpose, named by its label. */
  keyFor(label: string): Buffer;
  /** Outbound fetches under the address policy (uploads' source_url, webhooks, result URLs). */
  readonly fetcher: SafeFetcher;
  /** Names this process in claims and leases, so a restart on the same host takes back its dead ones. */
  readonly processOwner: ProcessOwner;
  /** The timings tests shorten. */
  readonly timing: {
    leaseMs: number;
    idlePollMs: number;
    webhookAttemptTimeoutMs: number;
    capacityWindowMs: number | undefined;
  };
}

/**
 * The process's logger: the configured level, credentials redacted, one write per event-loop turn;
 * on standard output (file descriptor 1), or for the CLI on standard error (2): a command's output
 * (`--json` read by scripts) is its own.
 */
export function createLogger(config: Config, fd: 1 | 2 = 1): Logger {
  return pino(
    {
      level: config.logLevel,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password'],
        censor: '[redacted]',
      },
    }, // One write per event-loop turn, never one per line; flushed on exit and crash.
    createLogDestination(fd),
  );
}

/** The store's side connections: PostgreSQL's LISTEN connection, or SQLite's search reader threads. */
async function openStoreSides(config: Config, db: Db, logger: Logger, ownDb: boolean) {
  const listener =
    dialectOf(db) === 'postgres'
      ? // `pg` is loaded for PostgreSQL only (postgres-listener.ts): a start on SQLite never loads it.
        await (await import('./infra/store/postgres-listener.js')).createPostgresListener({
          connectionString: config.databaseUrl,
          channels: [...TASK_FEED_CHANNELS, ACCOUNT_CHANGES_CHANNEL],
          logger: logger.child({ component: 'notifications' }),
        })
      : undefined;
  const searchReaders =
    dialectOf(db) === 'sqlite' && ownDb && config.databaseUrl !== ':memory:'
      ? createSqliteReaders({ file: config.databaseUrl, count: config.resourceCaps.searches.concurrency })
      : undefined;
  return { listener, searchReaders };
}

/** Opens the resources of one core from the config (the overrides replace side effects in tests). */
export async function openCoreResources(config: Config, overrides: CoreOverrides): Promise<CoreResources> {
  // sharp is set up (one libvips thread per operation, no operation cache) when it first loads: infra/images/sharp.ts.
  const logger = overrides.logger ?? createLogger(config);
  const db = overrides.db ?? (await openDatabase(config.databaseUrl));
  const metricsRegistry = createMetricsRegistry();
  const requestMetrics = createRequestMetrics(metricsRegistry);
  // Results stored in the last seconds are answered from memory (the synchronous answers' b64_json).
  const stored = withRecentResults(overrides.blobs ?? (await createBlobStore(config)));
  const blobs = countedBlobStore(stored, metricsRegistry);
  const masterKey = loadOrCreateMasterKey(config.dataDir, config.masterKey);
  return {
    config,
    clock: overrides.clock ?? systemClock,
    ids: overrides.ids ?? randomIds,
    logger,
    db,
    ...(await openStoreSides(config, db, logger, !overrides.db)),
    metricsRegistry,
    requestMetrics,
    tracing: overrides.tracing ?? (await createTracing(config.tracing)),
    blobs,
    publicUrls: createPublicUrls(config.publicBaseUrl),
    secrets: createSecretBox(masterKey),
    keyFor: (label) => deriveKey(masterKey, label),
    fetcher: createSafeFetcher({
      allowedHosts: config.uploadAllowedHosts,
      ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
    }),
    processOwner: overrides.processOwner ?? createProcessOwner(),
    timing: {
      leaseMs: overrides.leaseMs ?? LEASE_MS,
      idlePollMs: overrides.idlePollMs ?? 1000,
      webhookAttemptTimeoutMs: overrides.webhookAttemptTimeoutMs ?? 15_000,
      capacityWindowMs: overrides.capacityWindowMs,
    },
  };
}

/** Closes what the resources opened: the listener, the reader threads, then the database. */
export async function closeCoreResources(resources: CoreResources): Promise<void> {
  await resources.listener?.close();
  await resources.searchReaders?.close();
  await resources.db.destroy();
  // Spans buffered at shutdown are sent (the exporter's own timeout bounds the wait).
  await resources.tracing.shutdown();
}
