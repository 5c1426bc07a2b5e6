import type { Logger } from 'pino';
import type { Clock } from '../../base/runtime/clock.js';
import type { TasksRepository } from './tasks-repository.js';

/** Thrown into a step's signal when its lease was lost: another worker owns the task now. */
export class LeaseLostError extends Error {
  constructor(taskId: string) {
    super(`lease of ${taskId} lost`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Heartbeats: a worker renews the lease of every task it works on for as long as it works on it,
 * whatever the step (a submit, an upstream poll, a result download, the copy into blob storage),
 * so no other worker takes a task that is merely slow. The lease only runs out when its holder
 * dies or stalls. A renewal that finds the lease gone (taken over after a stall, or the task was
 * canceled or finished) aborts the step, whose later writes the store refuses anyway.
 */
export function createLeaseKeeper(deps: {
  tasks: Pick<TasksRepository, 'renewLease'>;
  owner: string;
  clock: Clock;
  leaseMs: number;
  logger: Logger;
}) {
  const { tasks, owner, clock, leaseMs, logger } = deps;
  // Three renewals per lease: one lost write (a busy database, a GC pause) does not lose the task.
  const intervalMs = Math.max(100, Math.floor(leaseMs / 3));

  return {
    intervalMs,
    /** Renews the lease of `taskId` until the returned function is called. */
    hold(taskId: string, controller: AbortController): () => void {
      let stopped = false;
      const timer = setInterval(() => {
        tasks.renewLease(taskId, owner, clock.now() + leaseMs).then(
          (held) => {
            if (held || stopped) return;
            logger.warn({ taskId }, 'lease lost while working on the task; step aborted');
            controller.abort(new LeaseLostError(taskId));
          },
          // A failed renewal is retried at the next beat; the lease outlives two misses.
          (error: unknown) => logger.warn({ err: error, taskId }, 'lease renewal failed'),
        );
      }, intervalMs);
      return () => {
        stopped = true;
        clearInterval(timer);
      };
    },
  };
}

export type LeaseKeeper = ReturnType<typeof createLeaseKeeper>;
