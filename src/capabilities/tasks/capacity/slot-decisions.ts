import { randomBytes } from 'node:crypto';
import type { Db } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import type { CapacityPool } from './capacity-pool.js';
import { callBackIn, hasWaiters, type PoolWork, postponeRetry } from './pool-call-back.js';
import {
  afterQuota,
  afterRefusal,
  afterSuccess,
  holdsLimit,
  type LearningState,
  refusalKind,
} from './pool-learning.js';
import type { CallBack, CallResult, CallTeaching, SlotAnswer } from './slot-answers.js';
import type { SlotDecision } from './slot-turns.js';

/**
 * The decision of an acquire on the pool's locked row: a slot for one call of `taskId`, made by the
 * worker `owner`, or a wait (until when, if known). A task that is not already waiting (`waiter`
 * false) joins the queue behind parked tasks instead of taking a slot ahead of them.
 */
export function acquireDecision(
  work: PoolWork,
  pool: CapacityPool,
  taskId: string,
  owner: string,
  waiter: boolean,
): SlotDecision<SlotAnswer> {
  const { clock, rules, reads, poolRoom } = work;
  return async (trx, locked, turn) => {
    let row = locked;
    // Read after the lock: a transaction that queued for it must not count from before.
    const now = clock.now();
    // Dead workers' calls hold slots only on a pool with a limit on calls at once (not a ramp,
    // which they only help to climb); elsewhere
    // ending them (a look at every call in flight: quadratic in a burst of a thousand slots)
    // waits for a refusal's count or a call-back, and only the calls past the window go.
    if (!turn.forgotten) row = await poolRoom.rampIfQuiet(trx, row, pool, now);
    if (pool.limits.maxInFlight !== undefined || holdsLimit(rules, row, now))
      await reads.endDeadCalls(trx, pool.id, now);
    else if (!turn.forgotten) await reads.forgetOldCalls(trx, pool.id, now);
    turn.forgotten = true;
    // A ramp found full earlier in this turn is full still (only a release frees room).
    if (turn.rampFull) return { answer: turn.rampFull, row };
    const { free, retryAt, growsAt, ramping } = await poolRoom.room(trx, row, pool, now);
    if (free < 1) {
      await postponeRetry(trx, row, pool, retryAt);
      const retry_at = Math.max(row.retry_at, retryAt ?? 0);
      const answer: SlotAnswer = { kind: 'wait', retryAt, ...(ramping ? { ramping } : {}) };
      if (ramping) turn.rampFull = answer;
      return { answer, row: { ...row, retry_at } };
    }
    if (!waiter && (await hasWaiters(reads, trx, pool.id, now, turn)))
      return { answer: { kind: 'wait', retryAt: undefined }, row };
    const callId = `call_${randomBytes(12).toString('base64url')}`;
    await trx.executeQuery(work.statements.insertCall(callId, pool.id, taskId, owner, now));
    if (growsAt === undefined) return { answer: { kind: 'granted', callId }, row };
    await postponeRetry(trx, row, pool, growsAt);
    const retry_at = Math.max(row.retry_at, growsAt);
    return { answer: { kind: 'granted', callId, retryAt: growsAt }, row: { ...row, retry_at } };
  };
}

/** How a call ended, and what its answer said (a Retry-After, a limit on time, a request budget). */
export interface CallEnd {
  result: CallResult;
  retryAfterMs: number | undefined;
  taught: CallTeaching;
}

/**
 * The decision of a release on the pool's locked row: ends the call's slot, learns from how it ended
 * (a refusal lowers the limit and holds the pool), and calls back the parked tasks the freed room allows.
 */
export function releaseDecision(
  work: PoolWork,
  pool: CapacityPool,
  callId: string,
  end: CallEnd,
): SlotDecision<CallBack> {
  return async (trx, row, turn) => {
    // Read after the lock: a transaction that queued for it must not count from before.
    const now = work.clock.now();
    turn.rampFull = undefined;
    await trx.executeQuery(work.statements.endCall(callId, now, end.result === 'refused' ? 1 : 0));
    if (end.result === 'refused') await countRefusal(trx, callId);
    const learned = await lessonOf(work, trx, row, pool, end, now);
    if (learned) await trx.executeQuery(work.statements.updatePool(pool.id, learned));
    const next = { ...row, ...learned };
    return { answer: await callBackIn(work, trx, next, pool, turn), row: next };
  };
}

/** A refusal counted on its task (the operator's task log; upstream_calls rows are pruned after the window). */
async function countRefusal(trx: Db, callId: string): Promise<void> {
  await trx
    .updateTable('tasks')
    .set((eb) => ({ upstream_refusals: eb('upstream_refusals', '+', 1) }))
    .where('id', '=', (eb) => eb.selectFrom('upstream_calls').select('task_id').where('id', '=', callId))
    .execute();
}

/**
 * What a call's end teaches the pool (pool-learning.ts): the request budget its answer reported,
 * a success's count toward one more call at once, a refusal's hold (on time) or lower limit
 * (calls at once, counted without the calls of dead workers).
 */
async function lessonOf(
  { rules, reads }: PoolWork,
  trx: Db,
  row: UpstreamPoolsTable,
  pool: CapacityPool,
  { result, retryAfterMs, taught }: CallEnd,
  now: number,
): Promise<Partial<UpstreamPoolsTable> | undefined> {
  const quota = taught.quota || result === 'ok' ? afterQuota(row, taught.quota, now) : undefined;
  let learned: Partial<LearningState> | undefined;
  if (result === 'ok') learned = afterSuccess(row, pool.limits.maxInFlight);
  else if (result === 'refused') {
    // A slot's acquire on an unbounded pool leaves the calls of dead workers: end them first.
    await reads.endDeadCalls(trx, pool.id, now);
    const others = await reads.inFlight(trx, pool.id);
    learned = afterRefusal(rules, row, now, {
      kind: refusalKind(taught.timeLimit, others),
      others,
      retryAfterMs,
      configured: pool.limits.maxInFlight !== undefined,
    });
  }
  if (!quota && !learned) return undefined;
  const holdUntil = Math.max(Number(row.hold_until), Number(learned?.hold_until ?? 0));
  return { ...quota, ...learned, retry_at: Math.max(Number(row.retry_at), holdUntil), updated_at: now };
}
