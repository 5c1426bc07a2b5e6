import { type FormEvent, useId, useState } from 'react';
import type { AdminBudget } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { MICROS_PER_UNIT, parseUsd } from '../../lib/vocabulary';
import { FormOutcome } from '../../ui/form-fields';
import { usd } from './admin-kit';

/** A dollar amount typed as text (empty for none). */
function DollarField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input id={id} inputMode="decimal" value={value} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}

/** Dollars for a field ("0.05"), from micro-dollars; empty for no budget. */
const dollars = (micros: number | null | undefined) =>
  micros === null || micros === undefined ? '' : String(micros / MICROS_PER_UNIT);

/**
 * Daily and monthly spend budgets, in dollars, saved by PUT to `path` (an account's, or one of its
 * keys'); an empty field removes one.
 */
export function BudgetForm({
  path,
  budget,
  holds,
  onSaved,
}: {
  path: string;
  budget: { daily_micros: number | null; monthly_micros: number | null } | null;
  /** Whose requests the budgets hold (the note above the fields). */
  holds: string;
  onSaved: () => void;
}) {
  const [daily, setDaily] = useState(dollars(budget?.daily_micros));
  const [monthly, setMonthly] = useState(dollars(budget?.monthly_micros));
  const [status, setStatus] = useState<AdminBudget['status']>();
  const state = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    const parse = (text: string, what: string) => {
      if (text.trim() === '') return null;
      const micros = parseUsd(text);
      if (micros === undefined)
        throw new Error(`The ${what} budget must be an amount in dollars, like 12.50`);
      return micros;
    };
    void state.run(async () => {
      const body = { daily_micros: parse(daily, 'daily'), monthly_micros: parse(monthly, 'monthly') };
      // An account's answer says where it stands; a key's only what was set.
      const answer = await api.put<{ status?: AdminBudget['status'] }>(path, body);
      setStatus(answer.status);
      onSaved();
      return 'Budgets saved. The next generate request is held to them.';
    });
  };

  return (
    <form className="stack" onSubmit={save}>
      <p className="small muted">
        {holds} that could go past a budget are refused before any upstream call (402). Leave a field empty
        for no budget.
      </p>
      <div className="admin-filters">
        <DollarField label="Daily budget (USD, UTC day)" value={daily} onChange={setDaily} />
        <DollarField label="Monthly budget (USD, UTC month)" value={monthly} onChange={setMonthly} />
        <button type="submit" className="button" disabled={state.busy}>
          Save budgets
        </button>
      </div>
      <FormOutcome error={state.error} done={state.done} />
      {status && (
        <ul className="usage-list small">
          {status.daily && (
            <li>
              Today: {usd(status.daily.spent_micros)} of {usd(status.daily.limit_micros)} spent or held
            </li>
          )}
          {status.monthly && (
            <li>
              This month: {usd(status.monthly.spent_micros)} of {usd(status.monthly.limit_micros)} spent or
              held
            </li>
          )}
        </ul>
      )}
    </form>
  );
}
