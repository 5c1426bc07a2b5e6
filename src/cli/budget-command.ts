import type { Core } from '../core.js';
import { formatUsd, parseUsd } from '../domain/money.js';

/** A --daily / --monthly value: dollars with up to six decimals ("25", "12.50", "$0.75"), or "none" to remove. */
export function budgetOption(value: string | undefined, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'none') return null;
  const micros = parseUsd(value);
  if (micros === undefined)
    throw new Error(`--${name} must be an amount in US dollars (e.g. 25 or 12.50), or none to remove it`);
  return micros;
}

const describe = (micros: number | null) => (micros === null ? 'none' : formatUsd(micros));

/**
 * `atelier accounts set-budget --email E [--daily USD] [--monthly USD]`: the account's spend budgets
 * per UTC day and month, in dollars (kept as micro-dollars); the same service the operator console
 * calls. The next generate request is held to them, on every node.
 */
export async function setBudgetCommand(
  core: Pick<Core, 'budgets'>,
  account: { id: string; email: string },
  change: { daily: number | null | undefined; monthly: number | null | undefined },
  json: boolean,
  out: (line: string) => void,
): Promise<void> {
  const budget = await core.budgets.set(account.id, {
    ...(change.daily === undefined ? {} : { dailyMicros: change.daily }),
    ...(change.monthly === undefined ? {} : { monthlyMicros: change.monthly }),
  });
  out(
    json
      ? JSON.stringify({
          email: account.email,
          daily_micros: budget.dailyMicros,
          monthly_micros: budget.monthlyMicros,
          currency: 'USD',
        })
      : `Budgets of ${account.email}: daily ${describe(budget.dailyMicros)}, monthly ${describe(budget.monthlyMicros)} (UTC days and months).`,
  );
}
