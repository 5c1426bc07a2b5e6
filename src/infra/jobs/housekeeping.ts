import type { Logger } from 'pino';

/** How often a worker node runs the periodic clean-ups. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Periodic clean-ups of a worker node (e.g. idempotency records past their 24 h), run once at start
 * and then every interval. Each job is idempotent, so several nodes doing the same is harmless.
 */
export function createHousekeeping(
  jobs: Record<string, () => Promise<unknown>>,
  logger: Logger,
  intervalMs = HOUSEKEEPING_INTERVAL_MS,
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runAll = async () => {
    for (const [name, job] of Object.entries(jobs)) {
      try {
        await job();
      } catch (error) {
        logger.warn({ err: error, job: name }, 'housekeeping job failed; it runs again next time');
      }
    }
  };
  const tick = () => {
    running ??= runAll().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    /** Runs every job now, then every interval (the timer does not keep the process alive). */
    start(): Promise<void> {
      if (!timer) {
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      return tick();
    },
    /** Stops the timer and waits for a run in progress. */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
