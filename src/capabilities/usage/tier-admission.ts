import { sql } from 'kysely';
import type { Allowance } from '../../base/contract/usage.js';
import { ForbiddenModel, QuotaExceeded } from '../../base/domain/errors.js';
import type { Tier } from '../../base/domain/tiers.js';
import type { Clock } from '../../base/runtime/clock.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import { countTasksForPolicy } from '../tasks/index.js';
import type { TierPolicies, TierPolicy } from './tier-policies.js';
import { periodsOf } from './usage-days.js';

/** Retry-After of a refusal over `tasks_in_flight`: a task's end frees a place, at no known time. */
export const IN_FLIGHT_RETRY_MS = 5000;
/** First key of the per-account advisory lock that serialises admissions on PostgreSQL. */
export const ADMISSION_LOCK_KEY = 74_139;

interface Caller {
  id: string;
  tier: Tier;
}

const hasQuota = (policy: TierPolicy | undefined): policy is TierPolicy =>
  policy !== undefined &&
  (policy.images_per_day !== undefined ||
    policy.images_per_month !== undefined ||
    policy.tasks_in_flight !== undefined);

/**
 * Tier policies at the door of generation: the models a tier may use, and its quotas, counted from
 * the tasks themselves (no counter to drift; a policy added or changed mid-month applies to what
 * was already used). Images count when requested; an image that ends failed gives its place back.
 * `policies` answers the policies in force now (they change at run time, src/capabilities/usage/
 * live-policies.ts); each check reads them once.
 */
export function createTierAdmission(deps: { policies: () => TierPolicies; clock: Clock }) {
  const { policies, clock } = deps;

  async function counts(executor: Db, accountId: string) {
    const periods = periodsOf(clock.now());
    return { periods, ...(await countTasksForPolicy(executor, accountId, periods)) };
  }

  return {
    /** Refuses (forbidden_model) a model the caller's tier may not use. */
    checkModel(caller: Caller, modelId: string): void {
      const allowed = policies()[caller.tier]?.models;
      if (allowed && !allowed.includes(modelId))
        throw new ForbiddenModel(
          `Model ${modelId} is not available on the ${caller.tier} tier (available: ${allowed.join(', ')})`,
        );
    },

    /**
     * Inside the transaction that has just written `images` new tasks for the caller: refuses
     * (quota_exceeded, which rolls it back) when they take the account over a quota. Admissions of
     * one account are serialised — by SQLite's single writer, by an advisory lock on PostgreSQL —
     * and each counts the tasks committed before it, so concurrent requests cannot overshoot.
     */
    async admitIn(executor: Db, caller: Caller, images: number): Promise<void> {
      const policy = policies()[caller.tier];
      if (!hasQuota(policy)) return;
      if (dialectOf(executor) === 'postgres')
        await sql`select pg_advisory_xact_lock(${sql.lit(ADMISSION_LOCK_KEY)}, hashtext(${caller.id}))`.execute(
          executor,
        );
      // The counts include this request's own tasks, written earlier in the transaction.
      const { periods, inFlight, today, thisMonth } = await counts(executor, caller.id);
      const now = clock.now();
      const over = (limit: number | undefined, used: number, per: string, resetsAt: number) => {
        if (limit === undefined || used <= limit) return;
        const before = used - images;
        throw new QuotaExceeded(
          `Quota exceeded: the ${caller.tier} tier allows ${limit} images per ${per}; ${before} used, ${images} requested (resets at ${new Date(resetsAt).toISOString()})`,
          resetsAt - now,
        );
      };
      over(policy.images_per_month, thisMonth, 'month (UTC)', periods.nextMonth);
      over(policy.images_per_day, today, 'day (UTC)', periods.nextDay);
      if (policy.tasks_in_flight !== undefined && inFlight > policy.tasks_in_flight)
        throw new QuotaExceeded(
          `Quota exceeded: the ${caller.tier} tier allows ${policy.tasks_in_flight} tasks in flight at once; ${inFlight - images} queued or in progress, ${images} requested (retry when one finishes)`,
          IN_FLIGHT_RETRY_MS,
        );
    },

    /** What the caller's tier policy allows and what is left now; null when no policy applies. */
    async allowance(db: Db, caller: Caller): Promise<Allowance | null> {
      const policy = policies()[caller.tier];
      if (!policy) return null;
      const { periods, inFlight, today, thisMonth } = await counts(db, caller.id);
      const quota = (limit: number | undefined, used: number, resetsAt: number) =>
        limit === undefined
          ? null
          : { limit, used, remaining: Math.max(0, limit - used), resets_at: resetsAt };
      const inFlightLimit = policy.tasks_in_flight;
      return {
        tier: caller.tier,
        models: policy.models ?? null,
        images_per_day: quota(policy.images_per_day, today, periods.nextDay),
        images_per_month: quota(policy.images_per_month, thisMonth, periods.nextMonth),
        tasks_in_flight:
          inFlightLimit === undefined
            ? null
            : { limit: inFlightLimit, current: inFlight, remaining: Math.max(0, inFlightLimit - inFlight) },
      };
    },
  };
}

export type TierAdmission = ReturnType<typeof createTierAdmission>;
