import { type FormEvent, useId, useState } from 'react';
import type { AdminEffectiveRetention } from '../../../../src/base/contract/admin-retention';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { FormOutcome } from '../../ui/form-fields';

type Kind = keyof AdminEffectiveRetention;
type InForce = AdminEffectiveRetention[Kind];

const SOURCE_LABEL = {
  account: 'this account’s own setting',
  tier: 'the tier policy',
  deployment: 'the deployment (ATELIER_RETENTION_…_DAYS)',
} as const;

const daysText = (days: number) => (days === 1 ? '1 day' : `${days} days`);

/** The retention in force for one kind, and where it comes from. */
function inForceText(what: string, inForce: InForce): string {
  if (inForce.days === null || inForce.source === null)
    return `${what}: kept until deleted (no retention set).`;
  return `${what}: ${daysText(inForce.days)}, from ${SOURCE_LABEL[inForce.source]}.`;
}

/** What each place sets, shortest winning: "account 30 · tier — · deployment 90". */
function placesText(inForce: InForce): string {
  const place = (days: number | null) => (days === null ? '—' : daysText(days));
  return `account ${place(inForce.account)} · tier ${place(inForce.tier)} · deployment ${place(inForce.deployment)}`;
}

/** A whole number of days typed as text (empty for none). */
function DaysField({
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
      <input id={id} inputMode="numeric" value={value} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}

/** Days typed in a field: null when empty; an error naming the field when not 1–36500. */
function parseDays(text: string, what: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const days = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || days < 1 || days > 36_500)
    throw new Error(`The ${what} retention must be a whole number of days from 1 to 36500, or empty`);
  return days;
}

/**
 * An account's retention (docs/operations.md, Data lifecycle): the periods in force for results
 * and uploads and where each comes from (the shortest of account, tier and deployment), and the
 * account's own, saved by PUT /api/admin/v1/accounts/{id}/retention (an empty field removes it).
 */
export function RetentionForm({
  accountId,
  retention,
  onSaved,
}: {
  accountId: string;
  retention: AdminEffectiveRetention;
  onSaved: () => void;
}) {
  const own = (days: number | null) => (days === null ? '' : String(days));
  const [results, setResults] = useState(own(retention.results.account));
  const [uploads, setUploads] = useState(own(retention.uploads.account));
  const state = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    void state.run(async () => {
      const body = {
        results_days: parseDays(results, 'results'),
        uploads_days: parseDays(uploads, 'uploads'),
      };
      await api.put(`/api/admin/v1/accounts/${encodeURIComponent(accountId)}/retention`, body);
      onSaved();
      return 'Retention saved. The next lifecycle run (every 5 minutes) removes what is past it, files included.';
    });
  };

  return (
    <form className="stack" onSubmit={save}>
      <ul className="usage-list small" aria-label="Retention in force">
        <li>
          {inForceText('Results', retention.results)}{' '}
          <span className="muted">({placesText(retention.results)})</span>
        </li>
        <li>
          {inForceText('Uploads', retention.uploads)}{' '}
          <span className="muted">({placesText(retention.uploads)})</span>
        </li>
      </ul>
      <p className="small muted">
        The shortest retention that applies wins. Past it, works and uploads are removed with their files and
        renditions (their URLs answer 410); task records and usage stay. Leave a field empty for no account
        setting.
      </p>
      <div className="admin-filters">
        <DaysField label="Results retention (days)" value={results} onChange={setResults} />
        <DaysField label="Uploads retention (days)" value={uploads} onChange={setUploads} />
        <button type="submit" className="button" disabled={state.busy}>
          Save retention
        </button>
      </div>
      <FormOutcome error={state.error} done={state.done} />
    </form>
  );
}
