import type { TaskQueue } from './capabilities/tasks/index.js';
import type { TierPolicies } from './capabilities/usage/index.js';
import type { CoreResources } from './core-resources.js';
import { createBlobPurges } from './infra/blobs/blob-purges.js';
import { createHousekeeping } from './infra/jobs/housekeeping.js';
import {
  createAccountRetention,
  createZeroRetention,
  type EraseDeps,
  eraseAccount,
  expireOldData,
  finishErasures,
  purgeRemovedWorks,
  type ZeroRetention,
} from './use-cases/lifecycle/index.js';

/** How often a worker node runs the data lifecycle's jobs (deleted works, files to remove). */
export const LIFECYCLE_INTERVAL_MS = 5 * 60 * 1000;

/**
 * The data lifecycle (docs/operations.md, Data lifecycle): deleted works purged, and the durable
 * to-do list of files to remove worked, by every worker node, each file by one node at a time.
 */
export function buildLifecycle(resources: CoreResources, parts: LifecycleParts) {
  const { db, clock, blobs, processOwner, logger, config } = resources;
  const blobPurges = createBlobPurges({ db, blobs, clock, owner: processOwner.id });
  const retention = {
    deployment: config.retentionDays,
    tier(tier: string) {
      const policy = parts.tierPolicies.policies()[tier as keyof TierPolicies];
      return policy && { results: policy.retention_results_days, uploads: policy.retention_uploads_days };
    },
  };
  const { markRemoved } = parts.generationsRepository;
  const zeroRetention = createZeroRetention({ db, clock, markRemoved, removeListedFiles: blobPurges.run });
  const cancelUnfinished = (accountId: string) =>
    parts.queue().cancel({ kind: 'account', accountId }, 'unfinished');
  const erasing = { db, clock, cancelUnfinished, changes: parts.accountChanges };
  const jobs = {
    // Erases that stopped midway (a crash, a task still running) are finished first.
    finishErasures: () => finishErasures(erasing),
    expireOldData: () => expireOldData({ db, clock, retention, markRemoved }),
    expireZeroRetention: () => zeroRetention.expire(),
    purgeRemovedWorks: () => purgeRemovedWorks(db, clock),
    // After the works' job: the files it listed go in the same run.
    removeUnusedFiles: () => blobPurges.run(),
  };
  const log = logger.child({ component: 'lifecycle' });
  const housekeeping = createHousekeeping(jobs, log, LIFECYCLE_INTERVAL_MS);
  const lifecycle = {
    /** Whether the lifecycle removed the file at a key for good (/files answers 410). */
    isGone: blobPurges.isGone,
    /** An account's own retention periods (admin API). */
    accountRetention: createAccountRetention(db, retention),
    /** Zero-retention works' files: /files asks, and tells of each image delivered (fetched, or answered inline). */
    zeroRetention: deliveriesOf(zeroRetention, log),
    /**
     * Erases an account: every row of it goes, its files are listed to go at the next run
     * (docs/operations.md, Erase an account). Idempotent; `pending` while a task of it still runs.
     */
    eraseAccount: (accountId: string) => eraseAccount(erasing, accountId),
    /** Runs every lifecycle job once now, in order (tests, the CLI). */
    async runOnce(): Promise<void> {
      await jobs.finishErasures();
      await jobs.expireOldData();
      await jobs.expireZeroRetention();
      await jobs.purgeRemovedWorks();
      await jobs.removeUnusedFiles();
    },
  };
  /** The worker role's periodic clean-ups: the lifecycle's and the others' (started and stopped as one). */
  return { lifecycle, housekeeping: housekeepingOf([housekeeping, parts.others]) };
}

export type Lifecycle = ReturnType<typeof buildLifecycle>['lifecycle'];

/** What the lifecycle reads beside the resources: the tier policies in force, the works' removal. */
interface LifecycleParts {
  tierPolicies: { policies(): TierPolicies };
  generationsRepository: { markRemoved(accountId: string, generationId: string): Promise<unknown> };
  /** The operator's queue (built after the lifecycle): an erase begins by canceling the account's tasks. */
  queue(): Pick<TaskQueue, 'cancel'>;
  /** How every node hears that accounts changed (an erase ends the account's keys at once). */
  accountChanges: EraseDeps['changes'];
  /** The other periodic clean-ups of the worker role, started and stopped with the lifecycle's. */
  others: Housekeeping;
}

/**
 * Deliveries told without waiting (the answer is not held up by the purge they may start); an error
 * is logged, the work then goes at the lifecycle run an hour after it ended. `settled` waits for
 * those under way (tests, a graceful stop).
 */
function deliveriesOf(zeroRetention: ZeroRetention, log: { warn(fields: object, message: string): void }) {
  const underWay = new Set<Promise<unknown>>();
  return {
    isZeroRetention: zeroRetention.isZeroRetention,
    delivered(keys: string[]): void {
      const delivery: Promise<unknown> = zeroRetention
        .delivered(keys)
        .catch((error: unknown) => log.warn({ err: error, keys }, 'zero-retention delivery not recorded'))
        .finally(() => underWay.delete(delivery));
      underWay.add(delivery);
    },
    async settled(): Promise<void> {
      while (underWay.size > 0) await Promise.all([...underWay]);
    },
  };
}

interface Housekeeping {
  start(): Promise<void>;
  stop(): Promise<void>;
}

function housekeepingOf(parts: Housekeeping[]): Housekeeping {
  return {
    start: async (): Promise<void> => void (await Promise.all(parts.map((p) => p.start()))),
    stop: async (): Promise<void> => void (await Promise.all(parts.map((p) => p.stop()))),
  };
}
