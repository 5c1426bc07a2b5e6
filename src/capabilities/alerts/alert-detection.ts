import type { AlertKind } from '../../base/contract/admin-alerts.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { AlertEvent } from './alert-messages.js';
import type { AlertRule, AlertRules } from './alert-rules.js';
import type { AlertsStore } from './alerts-store.js';

/** An upstream's circuit breaker opened, or closed again, on this node. */
export interface BreakerChange {
  provider: string;
  state: 'open' | 'closed';
  consecutiveFailures: number;
  /** The upstream's last error messages, newest last. */
  lastErrors: string[];
}

/** A pooled upstream key taken out of service (the node whose write took it out tells). */
export interface KeyTakenOut {
  provider: string;
  keyId: string;
  keyName: string;
  reason: string;
  message: string;
}

/** A task that just ended, as the node whose write ended it tells. */
export interface TaskEnded {
  taskId: string;
  accountId: string;
  status: 'completed' | 'failed';
}

/** One budget in force and where it stands (the usage capability's status). */
export interface BudgetLevel {
  limit_micros: number;
  spent_micros: number;
  resets_at: number;
}

/** What detection reads of other capabilities (wired by the composition root). */
export interface DetectionReads {
  budgetStatus(accountId: string): Promise<{ daily: BudgetLevel | null; monthly: BudgetLevel | null } | null>;
  /** A task's route. */
  routeOf(taskId: string): Promise<{ provider: string; upstreamModel: string } | undefined>;
  /** How the route's tasks created since `since` ended so far. */
  routeOutcomes(
    route: { provider: string; upstreamModel: string },
    since: number,
  ): Promise<{ finished: number; failed: number }>;
}

export interface DetectionDeps {
  rules: AlertRules;
  store: AlertsStore;
  clock: Clock;
  reads: DetectionReads;
  /** Enqueues the message of a claimed event for one rule. */
  send(rule: AlertRule, subject: string, event: AlertEvent): Promise<void>;
}

const percentOf = (level: BudgetLevel) =>
  level.limit_micros === 0 ? Number.POSITIVE_INFINITY : (level.spent_micros * 100) / level.limit_micros;

/** What each detection works with: its deps, and the claim-then-send step. */
interface Detecting extends DetectionDeps {
  /** Sends `what` for `rule` when this caller wins the claim of `subject`. */
  fire(rule: AlertRule, subject: string, what: AlertEvent): Promise<void>;
  event(kind: AlertKind, summary: string, data: Record<string, unknown>): AlertEvent;
}

/** An account's budgets after one of its tasks completed: each threshold crossed, once per period. */
async function budgetAlerts(ctx: Detecting, ended: TaskEnded): Promise<void> {
  const rulesOfKind = await ctx.rules.enabledOf('budget.threshold');
  if (rulesOfKind.length === 0) return;
  const status = await ctx.reads.budgetStatus(ended.accountId);
  if (!status) return;
  for (const period of ['daily', 'monthly'] as const) {
    const level = status[period];
    if (!level) continue;
    const spent = percentOf(level);
    const subjectOf = (threshold: number) => `${ended.accountId}:${period}:${level.resets_at}:${threshold}`;
    for (const rule of rulesOfKind) {
      // Every threshold crossed is claimed; the highest one newly claimed is the one sent.
      let newest: number | undefined;
      for (const threshold of rule.limits.thresholds.filter((t) => spent >= t))
        if (await ctx.store.claim(rule.id, subjectOf(threshold))) newest = threshold;
      if (newest === undefined) continue;
      const summary = `account ${ended.accountId} spent ${newest}% of its ${period} budget`;
      await ctx.send(
        rule,
        subjectOf(newest),
        ctx.event('budget.threshold', summary, {
          account_id: ended.accountId,
          period,
          threshold_percent: newest,
          spent_percent: Math.round(spent * 10) / 10,
          limit_micros: level.limit_micros,
          spent_micros: level.spent_micros,
          resets_at: new Date(level.resets_at).toISOString(),
        }),
      );
    }
  }
}

/** A route's failure rate after one of its tasks ended: fires above the rule, recovers below it. */
async function failureRateAlerts(ctx: Detecting, ended: TaskEnded): Promise<void> {
  const rulesOfKind = await ctx.rules.enabledOf('tasks.failure_rate');
  if (rulesOfKind.length === 0) return;
  const route = await ctx.reads.routeOf(ended.taskId);
  if (!route) return;
  const routeId = `${route.provider}/${route.upstreamModel}`;
  const subject = `route:${routeId}`;
  for (const rule of rulesOfKind) {
    // A success can only end an episode: it is not read further unless one is firing.
    if (ended.status === 'completed' && !(await ctx.store.firing(rule.id, subject))) continue;
    const { window_seconds, rate, min_count } = rule.limits;
    const since = ctx.clock.now() - window_seconds * 1000;
    const { finished, failed } = await ctx.reads.routeOutcomes(route, since);
    if (!(failed >= min_count && finished > 0 && failed / finished >= rate)) {
      await ctx.store.recover(rule.id, subject);
      continue;
    }
    const share = Math.round((failed / finished) * 1000) / 10;
    await ctx.fire(
      rule,
      subject,
      ctx.event('tasks.failure_rate', `${share}% of tasks on ${routeId} failed`, {
        route: routeId,
        provider: route.provider,
        upstream_model: route.upstreamModel,
        window_seconds,
        finished,
        failed,
        failure_percent: share,
        threshold_rate: rate,
        min_count,
      }),
    );
  }
}

/** An upstream's breaker opened (alerts once until a breaker of it closes again) or closed. */
async function breakerAlerts(ctx: Detecting, change: BreakerChange): Promise<void> {
  const subject = `provider:${change.provider}`;
  for (const rule of await ctx.rules.enabledOf('upstream.breaker_open')) {
    if (change.state === 'closed') {
      await ctx.store.recover(rule.id, subject);
      continue;
    }
    const summary = `upstream ${change.provider} is failing: its circuit breaker opened`;
    await ctx.fire(
      rule,
      subject,
      ctx.event('upstream.breaker_open', summary, {
        provider: change.provider,
        consecutive_failures: change.consecutiveFailures,
        last_errors: change.lastErrors,
      }),
    );
  }
}

/** A pooled key was taken out of service: one alert per taking-out (the key itself never). */
async function keyAlerts(ctx: Detecting, out: KeyTakenOut): Promise<void> {
  const at = ctx.clock.now();
  for (const rule of await ctx.rules.enabledOf('key_pool.key_removed')) {
    const summary = `upstream key ${out.provider}/${out.keyName} taken out of its pool (${out.reason})`;
    await ctx.fire(
      rule,
      `key:${out.keyId}:${at}`,
      ctx.event('key_pool.key_removed', summary, {
        provider: out.provider,
        key_name: out.keyName,
        reason: out.reason,
        message: out.message,
      }),
    );
  }
}

/**
 * Turns what happened into alerts, once per event across every node: each event is claimed in the
 * store (`alert_episodes`, one row per rule and subject) and only the claim's winner sends it.
 */
export function createDetection(deps: DetectionDeps) {
  const ctx: Detecting = {
    ...deps,
    async fire(rule, subject, what) {
      if (await deps.store.claim(rule.id, subject)) await deps.send(rule, subject, what);
    },
    event: (kind, summary, data) => ({ kind, at: deps.clock.now(), summary, data }),
  };
  return {
    breakerChanged: (change: BreakerChange) => breakerAlerts(ctx, change),
    keyTakenOut: (out: KeyTakenOut) => keyAlerts(ctx, out),
    /** A task ended: the account's budgets (when it completed) and its route's failure rate. */
    async taskEnded(ended: TaskEnded): Promise<void> {
      if (ended.status === 'completed') await budgetAlerts(ctx, ended);
      await failureRateAlerts(ctx, ended);
    },
  };
}

export type Detection = ReturnType<typeof createDetection>;
