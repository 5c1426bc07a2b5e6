import { formatUsd, parseUsd } from '../../base/domain/money.js';
import type { Core } from '../../core.js';

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

/** The working key of the account that `ref` names: its `key_…` id, or its hint (with or without the …). */
export function keyNamed<K extends { id: string; name: string; hint: string; revokedAt: number | null }>(
  keys: readonly K[],
  ref: string,
): K {
  const working = keys.filter((key) => key.revokedAt === null);
  const wanted = ref.trim();
  const found = working.filter(
    (key) => key.id === wanted || key.hint === wanted || key.hint === `${wanted}…`,
  );
  if (found.length === 1 && found[0]) return found[0];
  throw new Error(
    found.length === 0
      ? `no working API key ${wanted} on this account (atelier keys list shows them)`
      : `${found.length} keys have the hint ${wanted}: name one by its key_… id`,
  );
}

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
  /** One of the account's API keys: its budgets instead of the account's. */
  key?: { id: string; name: string },
): Promise<void> {
  const micros = {
    ...(change.daily === undefined ? {} : { dailyMicros: change.daily }),
    ...(change.monthly === undefined ? {} : { monthlyMicros: change.monthly }),
  };
  const budget = key
    ? await core.budgets.setKey(account.id, key.id, micros)
    : await core.budgets.set(account.id, micros);
  const whose = key ? `API key "${key.name}" (${key.id}) of ${account.email}` : account.email;
  out(
    json
      ? JSON.stringify({
          email: account.email,
          ...(key ? { key_id: key.id } : {}),
          daily_micros: budget.dailyMicros,
          monthly_micros: budget.monthlyMicros,
          currency: 'USD',
        })
      : `Budgets of ${whose}: daily ${describe(budget.dailyMicros)}, monthly ${describe(budget.monthlyMicros)} (UTC days and months).`,
  );
}
