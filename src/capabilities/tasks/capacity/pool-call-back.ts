import type { Clock } from '../../../base/runtime/clock.js';
import type { Db } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import { callBackInTurns } from './call-back-turns.js';
import { type CapacityPool, siblingPools } from './capacity-pool.js';
import type { CapacityReads } from './capacity-reads.js';
import type { LearningRules } from './pool-learning.js';
import type { PoolRoom } from './pool-room.js';
import type { CallBack } from './slot-answers.js';
import type { SlotStatements } from './slot-statements.js';
import type { SlotTurn } from './slot-turns.js';

/** What the decisions on a pool's locked row share: the clock, the learning rules, its reads and room. */
export interface PoolWork {
  clock: Clock;
  rules: LearningRules;
  reads: CapacityReads;
  poolRoom: PoolRoom;
  statements: SlotStatements;
}

/** Moves the pool's next look (`retry_at`) later when `retryAt` is later than the one kept. */
export async function postponeRetry(
  trx: Db,
  row: UpstreamPoolsTable,
  pool: CapacityPool,
  retryAt: number | undefined,
): Promise<void> {
  if (retryAt === undefined || retryAt <= row.retry_at) return;
  await trx.updateTable('upstream_pools').set({ retry_at: retryAt }).where('pool', '=', pool.id).execute();
}

/** Whether tasks are parked on the pool (read once per transaction while there are none). */
export async function hasWaiters(
  reads: CapacityReads,
  trx: Db,
  poolId: string,
  now: number,
  turn?: SlotTurn,
): Promise<boolean> {
  if (turn?.noWaiters) return false;
  const some = await reads.waiting(trx, poolId, now);
  if (turn && !some) turn.noWaiters = true;
  return some;
}

/** Whether tasks are parked on the pool's siblings (read once per transaction while there are none). */
async function siblingsWait(
  reads: CapacityReads,
  trx: Db,
  pool: CapacityPool,
  now: number,
  turn?: SlotTurn,
): Promise<boolean> {
  if (!pool.siblings?.length || turn?.noSiblingWaiters) return false;
  const some = await reads.anyWaiting(
    trx,
    siblingPools(pool).map((sibling) => sibling.id),
    now,
  );
  if (turn && !some) turn.noSiblingWaiters = true;
  return some;
}

/**
 * Calls back waiting tasks within the caller's transaction (the pool's row locked), and answers
 * the room left to spare when tasks wait on the pool's siblings (the caller lends it to them).
 */
export async function callBackIn(
  { clock, reads, poolRoom }: PoolWork,
  trx: Db,
  row: UpstreamPoolsTable,
  pool: CapacityPool,
  turn?: SlotTurn,
): Promise<CallBack> {
  const now = clock.now();
  const own = await hasWaiters(reads, trx, pool.id, now, turn);
  const lending = await siblingsWait(reads, trx, pool, now, turn);
  if (!own && !lending) return { called: 0, retryAt: undefined, spare: 0 };
  const { free, retryAt, growsAt } = await poolRoom.room(trx, row, pool, now);
  // A climbing ramp is looked at again when it grows: its parked tasks are not called back by a release.
  const next = retryAt ?? growsAt;
  await postponeRetry(trx, row, pool, next);
  const left = free - (await reads.calledBack(trx, pool.id, now));
  const called = own ? await callBackInTurns(trx, pool.id, left, now) : 0;
  return { called, retryAt: next, spare: lending ? Math.max(0, left - called) : 0 };
}
