import type { CoreResources } from './core-resources.js';
import { createBlobPurges } from './infra/blobs/blob-purges.js';
import { createHousekeeping } from './infra/jobs/housekeeping.js';
import { purgeRemovedWorks } from './use-cases/lifecycle/index.js';

/** How often a worker node runs the data lifecycle's jobs (deleted works, files to remove). */
export const LIFECYCLE_INTERVAL_MS = 5 * 60 * 1000;

/**
 * The data lifecycle (docs/operations.md, Data lifecycle): deleted works purged, and the durable
 * to-do list of files to remove worked, by every worker node, each file by one node at a time.
 */
export function buildLifecycle(resources: CoreResources, ...otherHousekeeping: Housekeeping[]) {
  const { db, clock, blobs, processOwner, logger } = resources;
  const blobPurges = createBlobPurges({ db, blobs, clock, owner: processOwner.id });
  const jobs = {
    purgeRemovedWorks: () => purgeRemovedWorks(db, clock),
    // After the works' job: the files it listed go in the same run.
    removeUnusedFiles: () => blobPurges.run(),
  };
  const housekeeping = createHousekeeping(
    jobs,
    logger.child({ component: 'lifecycle' }),
    LIFECYCLE_INTERVAL_MS,
  );
  const lifecycle = {
    /** Whether the lifecycle removed the file at a key for good (/files answers 410). */
    isGone: blobPurges.isGone,
    /** Runs every lifecycle job once now, in order (tests, the CLI). */
    async runOnce(): Promise<void> {
      await jobs.purgeRemovedWorks();
      await jobs.removeUnusedFiles();
    },
  };
  /** The worker role's periodic clean-ups: the lifecycle's and the others' (started and stopped as one). */
  return { lifecycle, housekeeping: housekeepingOf([housekeeping, ...otherHousekeeping]) };
}

export type Lifecycle = ReturnType<typeof buildLifecycle>['lifecycle'];

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
