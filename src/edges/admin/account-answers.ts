import type { AdminAccount } from '../../base/contract/admin.js';
import { NotFound } from '../../base/domain/errors.js';
import type { DirectoryEntry } from '../../capabilities/accounts/index.js';
import type { AdminDeps } from './admin-deps.js';

/** Today's UTC day (YYYY-MM-DD). */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type AccountsReport = Awaited<ReturnType<AdminDeps['usage']['accountsReport']>>;

/** An account's images and spend in a report, zero when it has no row. */
function countsOf(report: AccountsReport) {
  const byAccount = new Map(report.accounts.map((row) => [row.accountId, row]));
  return (id: string) => {
    const own = byAccount.get(id);
    return {
      completed: own?.completed ?? 0,
      failed: own?.failed ?? 0,
      cost_micros: own?.cost_micros ?? 0,
      absorbed_micros: own?.absorbed_micros ?? 0,
    };
  };
}

/** The entries with their images and spend of today and of this month, and their budgets. */
export async function withUsage(deps: AdminDeps, entries: DirectoryEntry[]): Promise<AdminAccount[]> {
  if (entries.length === 0) return [];
  const today = dayOf(deps.clock.now());
  const [ofDay, ofMonth, budgets] = await Promise.all([
    deps.usage.accountsReport({ from: today, to: today }),
    deps.usage.accountsReport({ from: `${today.slice(0, 8)}01`, to: today }),
    deps.budgets.list(),
  ]);
  const todayOf = countsOf(ofDay);
  const monthOf = countsOf(ofMonth);
  const budgetOf = new Map(budgets.map((budget) => [budget.accountId, budget]));
  return entries.map((entry) => {
    const budget = budgetOf.get(entry.id);
    return {
      id: entry.id,
      email: entry.email,
      tier: entry.tier,
      disabled: entry.disabled,
      operator: entry.operator,
      password_change_required: entry.passwordChangeRequired,
      created_at: entry.createdAt,
      today: todayOf(entry.id),
      month: monthOf(entry.id),
      budget: budget ? { daily_micros: budget.dailyMicros, monthly_micros: budget.monthlyMicros } : null,
    };
  });
}

/** The account's directory entry; 404 when there is none. */
export async function requireEntry(deps: AdminDeps, id: string): Promise<DirectoryEntry> {
  const entry = await deps.directory.entry(id);
  if (!entry) throw new NotFound('Account not found');
  return entry;
}

/** One account as the console shows it, with the retention in force; 404 when there is none. */
export async function oneAccount(deps: AdminDeps, id: string): Promise<AdminAccount> {
  const [account] = (await withUsage(deps, [await requireEntry(deps, id)])) as [AdminAccount];
  const retention = await deps.retention.effective(id);
  return retention ? { ...account, retention } : account;
}
