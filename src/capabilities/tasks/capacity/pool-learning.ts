import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';
import type { RequestQuota } from '../../providers/index.js';

/**
 * How a pool learns the upstream's limits, holds and paces its calls, and recovers — pure rules
 * over its stored row (every node reads and writes the same row), unit-tested beside this file.
 *
 * - **Calls at once.** A pool with no learned limit and no configured one climbs a ramp: `start`
 *   calls at first, growing `factor`-fold every `stepMs` as far as its calls prove (refusals come
 *   back in milliseconds, successes in seconds, so a limit is met a few calls past it), until `end`
 *   calls, where it is unbounded. A
 *   refusal read as a limit on calls at once sets the limit to the other calls in flight (never
 *   below half of the limit at the start of the episode), and the limit then grows by one per
 *   `successesPerIncrease` successes (additive). A limit with no such refusal for `forgetMs` is
 *   forgotten: the pool climbs the ramp again from it, until the next refusal.
 * - **Time.** A refusal the provider marks as a limit on time (or one with no other call in flight)
 *   holds the pool for its Retry-After or reset, and leaves the limit on calls at once alone.
 * - **Pace.** The request budget an answer reports (limit, remaining, reset) is kept from the latest
 *   answer; calls started since count against it, and it refills at `limit` per window.
 */
export interface LearningRules {
  rampStart: number;
  /** A ramp grows `rampFactor`-fold per `rampStepMs`, and a call in flight that long unrefused proves itself. */
  rampFactor: number;
  rampStepMs: number;
  rampEnd: number;
  /** A pool not refused for calls at once for this long forgets its learned limit. */
  forgetMs: number;
  /** Refusals this close together are one episode (the limit falls at most by half in one). */
  episodeMs: number;
  /** A ramp restarts on a pool that made no call for this long (a new burst after a quiet spell). */
  idleMs: number;
  /** The window a request budget's limit refills over (OpenAI's limits are per minute). */
  windowMs: number;
  /** Hold after a refusal on time that named no wait. */
  defaultHoldMs: number;
  /** A request budget is spent short of its last `reserveMs` of refill (calls already on their way). */
  reserveMs: number;
}

/** The rules with the defaults, for a capacity window of `windowMs` (60 s; tests shorten it). */
export function learningRules(windowMs = 60_000, defaultHoldMs = 1000): LearningRules {
  return {
    rampStart: 8,
    rampFactor: 4,
    rampStepMs: 250,
    rampEnd: 4096,
    forgetMs: windowMs / 2,
    episodeMs: 1000,
    idleMs: 5000,
    windowMs,
    defaultHoldMs,
    reserveMs: 300,
  };
}

/** The learning fields of a pool's row. */
export type LearningState = Pick<
  UpstreamPoolsTable,
  | 'learned_limit'
  | 'successes'
  | 'burst_floor'
  | 'hold_until'
  | 'refused_at'
  | 'ramp_since'
  | 'ramp_base'
  | 'quota_limit'
  | 'quota_remaining'
  | 'quota_reset_at'
  | 'quota_seen_at'
>;

/** Successes before the learned limit grows by one: twice the limit, and never fewer than 20. */
export const successesPerIncrease = (limit: number) => Math.max(20, 2 * limit);

/**
 * What the calls in flight prove of a ramp: how many there are, how many have run `rampStepMs`
 * without a refusal (a refusal comes back in milliseconds), and when the next young one will have.
 */
export interface RampEvidence {
  inFlight: number;
  proven: number;
  nextProof: number | undefined;
}

const NO_EVIDENCE: RampEvidence = { inFlight: 0, proven: 0, nextProof: undefined };

/**
 * Calls a ramp from `base` allows at `now`: `rampFactor` times the calls it has proven (in flight
 * for a step unrefused, or ended well since the ramp began), never more than that per step of time
 * (Infinity once past `rampEnd`) — so calls that leave late, or a slow store, cannot outrun the
 * refusals they would bring. And when it next grows.
 */
function ramp(
  rules: LearningRules,
  base: number,
  since: number,
  now: number,
  row: LearningState,
  seen: RampEvidence,
) {
  const byTime = base * rules.rampFactor ** (Math.max(0, now - since) / rules.rampStepMs);
  // Successes count as proof on a fresh ramp only (a learned limit's count is its additive one).
  const ended = row.learned_limit === null ? row.successes : 0;
  const byProof = Math.max(base, rules.rampFactor * (seen.proven + ended));
  if (byTime >= rules.rampEnd && byProof >= rules.rampEnd)
    return { cap: Number.POSITIVE_INFINITY, grows: undefined };
  const cap = Math.floor(Math.min(byTime, byProof));
  // One more call than are in flight: once the time allows it and a young call has proven itself.
  const steps = Math.log((seen.inFlight + 1) / base) / Math.log(rules.rampFactor);
  const byTimeAt = Math.ceil(since + rules.rampStepMs * steps);
  const proofAt = seen.nextProof === undefined ? 0 : seen.nextProof + rules.rampStepMs;
  const grows = Math.max(byTimeAt, proofAt);
  return { cap, grows: grows > now ? grows : undefined };
}

/** True while the pool holds a learned limit (not a ramp, not forgotten). */
export const holdsLimit = (rules: LearningRules, row: LearningState, now: number): boolean =>
  row.learned_limit !== null && now < Number(row.refused_at) + rules.forgetMs;

/**
 * The pool's limit on calls at once now (Infinity: none), from its learned limit (or its ramp, or
 * its forgotten limit's ramp), and when it next grows while it is a ramp.
 */
export function callsLimit(
  rules: LearningRules,
  row: LearningState,
  now: number,
  seen: RampEvidence = NO_EVIDENCE,
): { limit: number; grows: number | undefined } {
  const refusedAt = Number(row.refused_at);
  if (row.learned_limit !== null) {
    const forgetAt = refusedAt + rules.forgetMs;
    if (now < forgetAt) return { limit: row.learned_limit, grows: undefined };
    const forgotten = ramp(rules, Math.max(1, row.learned_limit), forgetAt, now, row, seen);
    return { limit: forgotten.cap, grows: forgotten.grows };
  }
  const since = Number(row.ramp_since);
  if (since === 0) return { limit: Number.POSITIVE_INFINITY, grows: undefined };
  const climbing = ramp(rules, Math.max(1, row.ramp_base || rules.rampStart), since, now, row, seen);
  return { limit: climbing.cap, grows: climbing.grows };
}

/**
 * A new ramp for a burst into a quiet pool that has no limit on calls at once now (a fresh pool,
 * or one whose ramp or forgetting ended): from the forgotten limit, or `rampStart`.
 */
export function rampStart(rules: LearningRules, row: LearningState, now: number): Partial<LearningState> {
  return {
    learned_limit: null,
    ramp_since: now,
    ramp_base: Math.max(rules.rampStart, row.learned_limit ?? 0),
    successes: 0,
  };
}

/** What a success teaches: one more call at once after `successesPerIncrease` of them (additive). */
export function afterSuccess(
  row: LearningState,
  ceiling: number | undefined,
): Partial<LearningState> | undefined {
  // On a ramp, successes prove calls (the ramp grows per round of them).
  if (row.learned_limit === null) return row.ramp_since === 0 ? undefined : { successes: row.successes + 1 };
  const successes = row.successes + 1;
  if (successes < successesPerIncrease(row.learned_limit)) return { successes };
  return {
    successes: 0,
    learned_limit: Math.min(ceiling ?? Number.POSITIVE_INFINITY, row.learned_limit + 1),
  };
}

/** How a refusal reads: a limit on time, or a limit on calls at once. */
export type RefusalKind = 'time' | 'calls';

/** A refusal on time if the provider marked it so, or if no other call was in flight (nothing to lower). */
export const refusalKind = (timeLimit: boolean | undefined, others: number): RefusalKind =>
  timeLimit || others === 0 ? 'time' : 'calls';

/**
 * What a refusal teaches. On time: a hold until its wait ends; the limit on calls at once stays.
 * On calls at once: the limit falls to the `others` still in flight (not below half of the limit at
 * the episode's start), the ramp stops, and no hold (the next call leaves when one of those ends).
 * A limit set in the catalog (`configured`) is the operator's word: refusals then only hold.
 */
export function afterRefusal(
  rules: LearningRules,
  row: LearningState,
  now: number,
  refusal: { kind: RefusalKind; others: number; retryAfterMs: number | undefined; configured: boolean },
): Partial<LearningState> {
  const holdFor = refusal.retryAfterMs ?? rules.defaultHoldMs;
  if (refusal.kind === 'time' || refusal.configured)
    return { hold_until: Math.max(Number(row.hold_until), now + holdFor), successes: 0 };
  // The limit in force: a learned one not yet forgotten. A ramp's reach is a probe, not a limit
  // the upstream took: from a ramp (or none), the calls in flight are where the episode begins.
  const held = holdsLimit(rules, row, now);
  const start = held && row.learned_limit !== null ? row.learned_limit : refusal.others;
  // An episode is measured from its first refusal (a steady stream of refusals is many episodes).
  const episode = now - Number(row.refused_at) < rules.episodeMs;
  // From a ramp, the calls in flight include the probe's own refused calls: no floor, so the limit
  // falls to the calls the upstream took as the refusals come back.
  const floor = episode ? row.burst_floor : held ? Math.max(1, Math.floor(start / 2)) : 1;
  return {
    learned_limit: Math.max(floor, Math.min(start, refusal.others)),
    burst_floor: floor,
    refused_at: episode ? Number(row.refused_at) : now,
    ramp_since: 0,
    successes: 0,
  };
}

/**
 * Keeps the budget of the latest answer (an older answer read later teaches nothing new). A
 * success that states no budget (`undefined`) clears the one kept: an upstream that reports its
 * budget does so on every answer, so one that stops has no such limit now (it was lifted).
 */
export function afterQuota(
  row: LearningState,
  quota: RequestQuota | undefined,
  now: number,
): Partial<LearningState> | undefined {
  // Counted from when the answer was read: the calls started since then are the pool's `started`.
  const at = Math.min(now, quota?.readAt ?? now);
  if (at < Number(row.quota_seen_at)) return undefined;
  if (!quota)
    return row.quota_limit === null
      ? undefined
      : { quota_limit: null, quota_remaining: null, quota_seen_at: at };
  return {
    quota_limit: quota.limit,
    quota_remaining: quota.remaining,
    quota_reset_at: at + quota.resetMs,
    quota_seen_at: at,
  };
}

/**
 * Calls the request budget allows now, given `started` calls begun since it was read, and when one
 * more may start if none may now. The budget refills at `limit` per window from what was left,
 * up to what it holds when whole (left + refill until its reset). Unbounded when none was read, or
 * when it was read more than a window before its reset (the upstream has surely refilled it).
 */
export function quotaRoom(
  rules: LearningRules,
  row: LearningState,
  started: number,
  now: number,
): { free: number; retryAt: number | undefined } {
  if (row.quota_limit === null || row.quota_remaining === null)
    return { free: Number.POSITIVE_INFINITY, retryAt: undefined };
  const seenAt = Number(row.quota_seen_at);
  const resetAt = Number(row.quota_reset_at);
  if (now > resetAt + rules.windowMs) return { free: Number.POSITIVE_INFINITY, retryAt: undefined };
  const perMs = row.quota_limit / rules.windowMs;
  // A call already on its way when the answer was written is in neither count: keep a reserve of
  // what the budget refills in `reserveMs` (at least one request).
  const left = row.quota_remaining - Math.max(1, Math.ceil(perMs * rules.reserveMs));
  const whole = left + perMs * Math.max(0, resetAt - seenAt);
  const allowance = Math.min(whole, left + perMs * (now - seenAt)) - started;
  if (allowance >= 1) return { free: Math.floor(allowance), retryAt: undefined };
  const at = seenAt + (started + 1 - left) / perMs;
  return { free: 0, retryAt: Math.ceil(Math.max(at, now + 1 / perMs / 4, now + 1)) };
}
