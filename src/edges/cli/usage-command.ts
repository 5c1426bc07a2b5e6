import { parseArgs } from 'node:util';
import { formatUsd } from '../../base/domain/money.js';
import type { Core } from '../../core.js';

/** `atelier usage`: images completed and failed per account (or of one, with its allowance), from the store. */
export async function usageCommand(
  core: Pick<Core, 'usage' | 'accounts' | 'accountsRepository'>,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const query = { from: values.from, to: values.to };
  if (values.email !== undefined) {
    const account = await core.accounts.requireByEmail(values.email);
    const report = await core.usage.report(account, query);
    if (values.json) {
      out(JSON.stringify({ email: account.email, tier: account.tier, ...report }));
      return;
    }
    out(`${account.email} (tier ${account.tier}), ${report.from} to ${report.to} (UTC days)`);
    out('day\tcompleted\tfailed\tspend\tabsorbed');
    for (const day of report.days)
      if (day.completed + day.failed > 0) out(`${day.date}\t${countColumns(day)}`);
    out(`total\t${countColumns(report.totals)}`);
    for (const model of report.models)
      out(
        `  ${model.model}: ${model.completed} completed, ${model.failed} failed, ${formatUsd(model.cost_micros)}${model.absorbed_micros > 0 ? `, ${formatUsd(model.absorbed_micros)} absorbed` : ''}`,
      );
    for (const [name, budget] of [
      ['daily budget', report.budgets?.daily],
      ['monthly budget', report.budgets?.monthly],
    ] as const)
      if (budget)
        out(
          `${name}: ${formatUsd(budget.spent_micros)} of ${formatUsd(budget.limit_micros)} spent or reserved, ${formatUsd(budget.remaining_micros)} left (resets ${new Date(budget.resets_at).toISOString()})`,
        );
    const allowance = report.allowance;
    if (allowance) {
      for (const [name, quota] of [
        ['images per day', allowance.images_per_day],
        ['images per month', allowance.images_per_month],
      ] as const)
        if (quota) out(`${name}: ${quota.used} of ${quota.limit} used, ${quota.remaining} left`);
      if (allowance.tasks_in_flight)
        out(`tasks in flight: ${allowance.tasks_in_flight.current} of ${allowance.tasks_in_flight.limit}`);
      if (allowance.models) out(`models: ${allowance.models.join(', ')}`);
    }
    return;
  }
  const report = await core.usage.accountsReport(query);
  const accounts = new Map((await core.accountsRepository.list()).map((a) => [a.id, a]));
  // Accounts with images in the range, by email (deleted accounts' rows go with them).
  const rows = report.accounts
    .flatMap(({ accountId, ...counts }) => {
      const account = accounts.get(accountId);
      return account ? [{ email: account.email, tier: account.tier, ...counts }] : [];
    })
    .sort((a, b) => (a.email < b.email ? -1 : 1));
  if (values.json) {
    out(JSON.stringify({ from: report.from, to: report.to, accounts: rows }));
    return;
  }
  out(`${report.from} to ${report.to} (UTC days)`);
  out('email\ttier\tcompleted\tfailed\tspend\tabsorbed');
  for (const row of rows) out(`${row.email}\t${row.tier}\t${countColumns(row)}`);
}

/**
 * A row's completed, failed, spend and absorbed columns: absorbed is what upstreams billed beyond
 * quotes' maxima, paid by the operator and not in the spend (always a column, so scripts can rely on it).
 */
function countColumns(counts: {
  completed: number;
  failed: number;
  cost_micros: number;
  absorbed_micros: number;
}) {
  return `${counts.completed}\t${counts.failed}\t${formatUsd(counts.cost_micros)}\t${formatUsd(counts.absorbed_micros)}`;
}
