import type { Transaction } from 'kysely';
import type { Db } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import type { Database } from '../../../infra/store/schema.js';
import type { CapacityPool } from './capacity-pool.js';

/** What the decisions of one transaction on a pool learned and may share (reads made once). */
export interface SlotTurn {
  /** Ended calls past the window were deleted already in this transaction. */
  forgotten: boolean;
  /** A read in this transaction found no parked task on the pool (only call-backs remove them). */
  noWaiters: boolean;
  /** A read in this transaction found no task parked on the pool's siblings' pools. */
  noSiblingWaiters?: boolean;
  /** A ramp found full by an acquire of this transaction (until a release in it): later acquires wait too. */
  rampFull?: { kind: 'wait'; retryAt: number | undefined; ramping?: boolean } | undefined;
}

/** One slot decision on the pool's locked row: its answer, and the row as the decision left it. */
export type SlotDecision<T> = (
  trx: Transaction<Database>,
  row: UpstreamPoolsTable,
  turn: SlotTurn,
) => Promise<{ answer: T; row: UpstreamPoolsTable }>;

interface Pending {
  decide: SlotDecision<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The slot decisions (acquires, releases) asked for a pool in one turn of the event loop, made in
 * one transaction on its locked row, one after the other in the order asked — the decisions that
 * as many transactions in a row would make, for one commit and one lock of the pool instead of one
 * per call (a burst of a thousand calls cost two thousand commits). Each caller hears its answer
 * once the transaction has committed. When it fails, each decision is made again alone.
 *
 * A pool with a limit set in the catalog decides at once, in a transaction of its own: its
 * hand-off of a freed slot waits for no turn (a pool of 4 slots keeps its 4 calls busy).
 */
export function slotTurns(db: Db, lock: (trx: Db, pool: CapacityPool) => Promise<UpstreamPoolsTable>) {
  let queued = new Map<string, { pool: CapacityPool; items: Pending[] }>();

  async function decide(pool: CapacityPool, items: Pending[]): Promise<void> {
    let answers: unknown[];
    try {
      answers = await db.transaction().execute(async (trx) => {
        let row = await lock(trx, pool);
        const turn: SlotTurn = { forgotten: false, noWaiters: false };
        const done: unknown[] = [];
        for (const item of items) {
          const decided = await item.decide(trx, row, turn);
          row = decided.row;
          done.push(decided.answer);
        }
        return done;
      });
    } catch (error) {
      if (items.length === 1) items[0]?.reject(error);
      else for (const item of items) void decide(pool, [item]);
      return;
    }
    for (const [i, item] of items.entries()) item.resolve(answers[i]);
  }

  function flush(): void {
    const groups = queued;
    queued = new Map();
    for (const { pool, items } of groups.values()) void decide(pool, items);
  }

  /** Makes `decision` on `pool`: in this turn's transaction of the pool, or at once (`now`). */
  return <T>(pool: CapacityPool, decision: SlotDecision<T>, now: boolean): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const item: Pending = {
        decide: decision as SlotDecision<unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (now) return void decide(pool, [item]);
      if (queued.size === 0) setImmediate(flush);
      const group = queued.get(pool.id);
      if (group) group.items.push(item);
      else queued.set(pool.id, { pool, items: [item] });
    });
}
