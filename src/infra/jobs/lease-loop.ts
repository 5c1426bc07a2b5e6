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
  /**
   * Works one leased item; must not throw (expected outcomes are data). Resolves `'ended'` when the
   * item is done for good (nothing of it left to lease later): its end then wakes the loop only
   * when a round wanted more slots than it had.
   */
  work(item: T, controller: AbortController): Promise<unknown>;
  /** Runs at the top of every round (e.g. a periodic sweep). */
  beforeRound?(): Promise<void>;
  /** Runs once when the loop starts, before its first round (e.g. taking back dead holders' leases). */
  beforeFirstRound?(): Promise<void>;
}

/** Shortest sleep between rounds: a due time in the past never turns the loop into a busy wait. */
const MIN_SLEEP_MS = 10;

/**
 * The loop's sleep and what ends it early: a wake-up. A wake-up that comes while the loop is busy
 * (querying the store) skips the next sleep, so a notification is never lost between a look at the
 * store and the sleep that follows it.
 */
class WakeUps {
  #wakeUp: (() => void) | undefined;
  #wokenWhileBusy = false;
  #wakeQueued = false;

  wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#wokenWhileBusy = true;
  }

  /** A round begins: what it looks at includes the work of every earlier wake-up. */
  roundStarts(): void {
    this.#wokenWhileBusy = false;
  }

  /**
   * A freed slot wakes the loop once the items that end in the same turn of the event loop have
   * all ended: a burst of a thousand endings makes a few rounds (each one a look at the store)
   * instead of a thousand.
   */
  wakeAfterTurn(): void {
    if (this.#wakeQueued) return;
    this.#wakeQueued = true;
    setImmediate(() => {
      this.#wakeQueued = false;
      this.wake();
    });
  }

  /** Sleeps `ms`, or until a wake-up (at once when one came while the loop was busy). */
  sleep(ms: number): Promise<void> {
    if (this.#wokenWhileBusy) {
      this.#wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wakeUp = undefined;
        resolve();
      }, ms);
      this.#wakeUp = () => {
        this.#wakeUp = undefined;
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The loop's state: the items in flight, whether it runs, and its sleep. */
class LeaseLoop<T> {
  readonly #inFlight = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  readonly #wakeUps = new WakeUps();
  /** The last round had more due work than free slots (or none free): a freed slot is wanted. */
  #wantsSlots = false;
  #running = false;
  #loopDone: Promise<void> | undefined;

  constructor(private readonly options: LeaseLoopOptions<T>) {}

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loopDone = this.#loop();
  }

  wake(): void {
    this.#wakeUps.wake();
  }

  /** Free slots of a running loop (none when stopped): what a direct hand-off may fill. */
  room(): number {
    return this.#running ? this.options.concurrency - this.#inFlight.size : 0;
  }

  /**
   * Works an item this worker already leased (also used outside the loop, e.g. inline submit). Its
   * end wakes the loop when a round is short of slots, or when the item may be due again (a poll,
   * a retry: the loop's next due time must count it). An item that ended for good while the loop
   * had room wakes nothing: the loop's last look found no more due work than it could take, and
   * work made since wakes it itself (a synchronous image's end cost a whole round, the fair claim
   * among it, on the way to its answer: issue 48).
   */
  track(item: T): Promise<void> {
    const id = this.options.idOf(item);
    const controller = new AbortController();
    const promise = this.options.work(item, controller).then(
      (result) => {
        this.#inFlight.delete(id);
        if (result !== 'ended' || this.#wantsSlots) this.#wakeUps.wakeAfterTurn();
      },
      (error: unknown) => {
        this.#inFlight.delete(id);
        this.#wakeUps.wakeAfterTurn();
        throw error;
      },
    );
    this.#inFlight.set(id, { promise, controller });
    return promise;
  }

  /** Aborts the running work on one item, if this process runs it. */
  abort(id: string, reason: Error): void {
    this.#inFlight.get(id)?.controller.abort(reason);
  }

  async stop(graceMs: number): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loopDone;
    const pending = [...this.#inFlight.values()];
    const timer = setTimeout(() => {
      for (const { controller } of pending) controller.abort(new Error('shutting down'));
    }, graceMs);
    await Promise.allSettled(pending.map((p) => p.promise));
    clearTimeout(timer);
    await this.options.releaseAll();
  }

  async #loop(): Promise<void> {
    const { options } = this;
    try {
      await options.beforeFirstRound?.();
    } catch (error) {
      options.logger.error({ err: error }, `${options.name} start-up error`);
    }
    while (this.#running) {
      try {
        await this.#round();
      } catch (error) {
        options.logger.error({ err: error }, `${options.name} loop error`);
        await this.#wakeUps.sleep(options.idlePollMs);
      }
    }
  }

  /** One round: leases due work up to the free slots, then sleeps until the next due time. */
  async #round(): Promise<void> {
    const { options } = this;
    this.#wakeUps.roundStarts();
    await options.beforeRound?.();
    const capacity = options.concurrency - this.#inFlight.size;
    if (capacity <= 0) {
      // Every slot is busy: a finishing item wakes the loop; nothing to ask the store meanwhile.
      this.#wantsSlots = true;
      await this.#wakeUps.sleep(options.idlePollMs);
      return;
    }
    const leased = await options.leaseDue(capacity);
    for (const item of leased) void this.track(item);
    this.#wantsSlots = leased.length === capacity;
    if (leased.length > 0 && leased.length === capacity) return;
    // Nothing else is leasable now, so the next due time lies ahead (work that became due
    // between the two queries is the only way to get a time in the past: one more round).
    const nextDue = await options.nextDueAt();
    const wait =
      nextDue === undefined
        ? options.idlePollMs
        : Math.max(MIN_SLEEP_MS, Math.min(options.idlePollMs, nextDue - options.clock.now()));
    await this.#wakeUps.sleep(wait);
  }
}

/**
 * The poll loop shared by the task engine and the webhook worker: leases due work up to the
 * concurrency bound, sleeps until the next due time (or a wake-up), and stops gracefully — running
 * items get `graceMs`, are then aborted, and the leases are given back so a restart resumes at once.
 * Its functions may be passed around on their own (`onWork(loop.wake)`).
 */
export function createLeaseLoop<T>(options: LeaseLoopOptions<T>) {
  const loop = new LeaseLoop(options);
  return {
    start: (): void => loop.start(),
    wake: (): void => loop.wake(),
    room: (): number => loop.room(),
    track: (item: T): Promise<void> => loop.track(item),
    /** Aborts the running work on one item, if this process runs it. */
    abort: (id: string, reason: Error): void => loop.abort(id, reason),
    stop: (graceMs: number): Promise<void> => loop.stop(graceMs),
  };
}
