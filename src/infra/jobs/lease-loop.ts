import type { Logger } from 'pino';
import type { Clock } from '../../base/runtime/clock.js';

export interface LeaseLoopOptions<T> {
  /** For log lines. */
  name: string;
  clock: Clock;
  logger: Logger;
  /** Most items worked on at once. */
  concurrency: number;
  /** Longest sleep between looks for due work (work enqueued by other processes is found then). */
  idlePollMs: number;
  /** Leases up to `limit` due items for this worker. */
  leaseDue(limit: number): Promise<T[]>;
  /**
   * Earliest time at which some pending work could be leased by this worker: due work not under a
   * live lease, and leased work counted at its lease expiry (never "now" for work someone holds,
   * or the loop would wake up again and again while it is in flight).
   */
  nextDueAt(): Promise<number | undefined>;
  /** Gives back every lease this worker holds. */
  releaseAll(): Promise<void>;
  idOf(item: T): string;
  /** Works one leased item; must not throw (expected outcomes are data). */
  work(item: T, controller: AbortController): Promise<void>;
  /** Runs at the top of every round (e.g. a periodic sweep). */
  beforeRound?(): Promise<void>;
  /** Runs once when the loop starts, before its first round (e.g. taking back dead holders' leases). */
  beforeFirstRound?(): Promise<void>;
}

/** Shortest sleep between rounds: a due time in the past never turns the loop into a busy wait. */
const MIN_SLEEP_MS = 10;

/**
 * The poll loop shared by the task engine and the webhook worker: leases due work up to the
 * concurrency bound, sleeps until the next due time (or a wake-up), and stops gracefully — running
 * items get `graceMs`, are then aborted, and the leases are given back so a restart resumes at once.
 */
export function createLeaseLoop<T>(options: LeaseLoopOptions<T>) {
  const inFlight = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  let running = false;
  let loopDone: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  // A wake-up that came while the loop was busy querying: the next sleep is skipped, so a
  // notification is never lost between a look at the store and the sleep that follows it.
  let wokenWhileBusy = false;

  function wake(): void {
    if (wakeUp) wakeUp();
    else wokenWhileBusy = true;
  }

  // A freed slot wakes the loop once the items that end in the same turn of the event loop have
  // all ended: a burst of a thousand endings makes a few rounds (each one a look at the store)
  // instead of a thousand.
  let wakeQueued = false;
  function wakeAfterTurn(): void {
    if (wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      wake();
    });
  }

  function sleep(ms: number): Promise<void> {
    if (wokenWhileBusy) {
      wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wakeUp = undefined;
        resolve();
      }, ms);
      wakeUp = () => {
        wakeUp = undefined;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Works an item this worker already leased (also used outside the loop, e.g. inline submit). */
  function track(item: T): Promise<void> {
    const id = options.idOf(item);
    const controller = new AbortController();
    const promise = options.work(item, controller).finally(() => {
      inFlight.delete(id);
      wakeAfterTurn();
    });
    inFlight.set(id, { promise, controller });
    return promise;
  }

  async function loop(): Promise<void> {
    try {
      await options.beforeFirstRound?.();
    } catch (error) {
      options.logger.error({ err: error }, `${options.name} start-up error`);
    }
    while (running) {
      try {
        wokenWhileBusy = false;
        await options.beforeRound?.();
        const capacity = options.concurrency - inFlight.size;
        if (capacity <= 0) {
          // Every slot is busy: a finishing item wakes the loop; nothing to ask the store meanwhile.
          await sleep(options.idlePollMs);
          continue;
        }
        const leased = await options.leaseDue(capacity);
        for (const item of leased) void track(item);
        if (leased.length > 0 && leased.length === capacity) continue;
        // Nothing else is leasable now, so the next due time lies ahead (work that became due
        // between the two queries is the only way to get a time in the past: one more round).
        const nextDue = await options.nextDueAt();
        const wait =
          nextDue === undefined
            ? options.idlePollMs
            : Math.max(MIN_SLEEP_MS, Math.min(options.idlePollMs, nextDue - options.clock.now()));
        await sleep(wait);
      } catch (error) {
        options.logger.error({ err: error }, `${options.name} loop error`);
        await sleep(options.idlePollMs);
      }
    }
  }

  return {
    start(): void {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    wake,
    track,
    /** Aborts the running work on one item, if this process runs it. */
    abort(id: string, reason: Error): void {
      inFlight.get(id)?.controller.abort(reason);
    },
    async stop(graceMs: number): Promise<void> {
      running = false;
      wake();
      await loopDone;
      const pending = [...inFlight.values()];
      const timer = setTimeout(() => {
        for (const { controller } of pending) controller.abort(new Error('shutting down'));
      }, graceMs);
      await Promise.allSettled(pending.map((p) => p.promise));
      clearTimeout(timer);
      await options.releaseAll();
    },
  };
}
