import {
  DEFAULT_USAGE_DAYS,
  MAX_USAGE_DAYS,
  type OperatorUsageReport,
  type UsageQuery,
} from '../../base/contract/usage.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { Tier } from '../../base/domain/tiers.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { Budgets } from './budgets.js';
import type { TierAdmission } from './tier-admission.js';
import { addDays, dayOf, daysBetween, eachDay, startOfDay } from './usage-days.js';
import { ERASED_ACCOUNTS, type UsageRepository, type UsageRow } from './usage-repository.js';

/** absorbed_micros is the operator's figure: the account's own report leaves it out (its schema). */
type Counts = { completed: number; failed: number; cost_micros: number; absorbed_micros: number };
type ModelCounts = Counts & { model: string };

/** The inclusive range of UTC days a query asks for, with its defaults and limits checked. */
export function usageRange(query: UsageQuery, now: number): { from: string; to: string } {
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value !== undefined && startOfDay(value) === undefined)
      throw new InvalidInput(`${field} must be a date YYYY-MM-DD`, field);
  }
  const to = query.to ?? dayOf(now);
  const from = query.from ?? addDays(to, -(DEFAULT_USAGE_DAYS - 1));
  if (from > to) throw new InvalidInput('from must not be after to', 'from');
  if (daysBetween(from, to) > MAX_USAGE_DAYS)
    throw new InvalidInput(`The range covers at most ${MAX_USAGE_DAYS} days`, 'from');
  return { from, to };
}

/** Sums rows per model, by model id. */
function byModel(rows: readonly UsageRow[]): ModelCounts[] {
  const models = new Map<string, ModelCounts>();
  for (const row of rows) {
    const entry = models.get(row.model) ?? {
      model: row.model,
      completed: 0,
      failed: 0,
      cost_micros: 0,
      absorbed_micros: 0,
    };
    entry.completed += row.completed;
    entry.failed += row.failed;
    entry.cost_micros += row.cost_micros;
    entry.absorbed_micros += row.absorbed_micros;
    models.set(row.model, entry);
  }
  return [...models.values()].sort((a, b) => (a.model < b.model ? -1 : 1));
}

const total = (items: readonly Counts[]): Counts => ({
  completed: items.reduce((sum, item) => sum + item.completed, 0),
  failed: items.reduce((sum, item) => sum + item.failed, 0),
  cost_micros: items.reduce((sum, item) => sum + item.cost_micros, 0),
  absorbed_micros: items.reduce((sum, item) => sum + item.absorbed_micros, 0),
});

/**
 * Usage per account: images completed and failed per UTC day and model, counted in the store as
 * tasks end (never derived from logs), with what the account's tier policy leaves.
 */
export function createUsageService(deps: {
  db: Db;
  usage: UsageRepository;
  admission: TierAdmission;
  budgets?: Pick<Budgets, 'status'>;
  clock: Clock;
}) {
  const { usage, clock } = deps;
  return {
    /**
     * GET /user/usage: every day of the range (zeros included), per model, and the allowance; with
     * absorbed_micros for operators (the account's own routes' schema leaves it out).
     */
    async report(
      account: { id: string; tier: Tier; apiKey?: { id: string } | undefined },
      query: UsageQuery,
    ): Promise<OperatorUsageReport> {
      const { from, to } = usageRange(query, clock.now());
      const [rows, allowance, budgets] = await Promise.all([
        usage.rows(account.id, from, to),
        deps.admission.allowance(deps.db, account),
        deps.budgets?.status(account.id, account.apiKey?.id) ?? null,
      ]);
      const days = eachDay(from, to).map((date) => {
        const models = byModel(rows.filter((row) => row.day === date));
        return { date, ...total(models), models };
      });
      const models = byModel(rows);
      return { from, to, totals: total(models), days, models, allowance, currency: 'USD', budgets };
    },

    /**
     * The operator's view (CLI, operator console): per account over the range, by account id, with
     * per-model totals; and the deployment's totals per day and per model.
     */
    async accountsReport(query: UsageQuery) {
      const { from, to } = usageRange(query, clock.now());
      const rows = await usage.rows(undefined, from, to);
      const accounts = new Map<string, UsageRow[]>();
      for (const row of rows)
        if (row.account_id !== ERASED_ACCOUNTS)
          accounts.set(row.account_id, [...(accounts.get(row.account_id) ?? []), row]);
      const models = byModel(rows);
      return {
        from,
        to,
        totals: total(models),
        days: eachDay(from, to).map((date) => {
          const ofDay = byModel(rows.filter((row) => row.day === date));
          return { date, ...total(ofDay), models: ofDay };
        }),
        models,
        accounts: [...accounts.entries()].map(([accountId, own]) => {
          const ofAccount = byModel(own);
          return { accountId, ...total(ofAccount), models: ofAccount };
        }),
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
