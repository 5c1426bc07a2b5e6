import { type FormEvent, useState } from 'react';
import type { AdminPolicies } from '../../../../src/base/contract/admin';
import type { AdminPolicyVersion } from '../../../../src/base/contract/admin-policies';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog } from '../../ui/dialog';
import { Field, FormOutcome } from '../../ui/form-fields';

type TierRow = AdminPolicies['tiers'][number];

const LIMITS = [
  ['images_per_day', 'Images a day (UTC)'],
  ['images_per_month', 'Images a month (UTC)'],
  ['tasks_in_flight', 'Tasks at once'],
] as const;
type LimitName = (typeof LIMITS)[number][0];

/** The text of a limit's field: empty for no limit. */
const text = (value: number | null) => (value === null ? '' : String(value));

/**
 * A limit from its field: null for empty (no limit), a number otherwise (the server holds it to the
 * policy file's rules and says what is wrong); text that is no number is refused here.
 */
function limitOf(value: string, label: string): number | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const number = Number(trimmed);
  if (!Number.isFinite(number))
    throw new Error(`${label}: enter a whole number, or leave it empty for no limit`);
  return number;
}

/** What the edit changes, in words, for the confirmation. */
function changes(tier: TierRow, body: Record<string, unknown>): string[] {
  const said = (value: unknown) =>
    value === null ? 'no limit' : Array.isArray(value) ? value.join(', ') : String(value);
  const was = (name: string) => said(tier[name as LimitName | 'models']);
  return Object.entries(body)
    .filter(([name, value]) => was(name) !== said(value))
    .map(([name, value]) => `${name.replaceAll('_', ' ')}: ${was(name)} → ${said(value)}`);
}

/**
 * One tier's limits edited in the console (PATCH /policies/tiers/{tier}, on the version shown):
 * each limit a field, empty for no limit; the change is confirmed first, then in force on every
 * node within seconds. A refusal shows the server's message (the policy file's own).
 */
export function TierPolicyForm({
  tier,
  version,
  onSaved,
  onCancel,
}: {
  tier: TierRow;
  version: number;
  onSaved: (written: AdminPolicyVersion) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<LimitName, string>>({
    images_per_day: text(tier.images_per_day),
    images_per_month: text(tier.images_per_month),
    tasks_in_flight: text(tier.tasks_in_flight),
  });
  const [models, setModels] = useState(tier.models?.join(', ') ?? '');
  const [pending, setPending] = useState<{ body: Record<string, unknown>; lines: string[] }>();
  const state = useAction();

  const review = (event: FormEvent) => {
    event.preventDefault();
    try {
      const listed = models
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean);
      const body: Record<string, unknown> = { models: listed.length > 0 ? listed : null };
      for (const [name, label] of LIMITS) body[name] = limitOf(values[name], label);
      const lines = changes(tier, body);
      if (lines.length === 0) return state.fail('Nothing to save: every field is as it is in force.');
      setPending({ body, lines });
    } catch (error) {
      state.fail((error as Error).message);
    }
  };

  const save = (body: Record<string, unknown>) => {
    setPending(undefined);
    void state.run(async () => {
      const written = await api.patch<AdminPolicyVersion>(`/api/admin/v1/policies/tiers/${tier.tier}`, {
        ...body,
        expected_version: version,
      });
      onSaved(written);
      return `Saved as version ${written.version}: in force on every node within seconds.`;
    });
  };

  return (
    <form className="stack" onSubmit={review} aria-label={`Edit the ${tier.tier} tier`}>
      <p className="small muted">
        Leave a field empty for no limit. Models: catalog ids separated by commas; empty for every model.
      </p>
      <div className="admin-filters">
        <Field
          label="Models"
          control={(id) => (
            <input id={id} value={models} onChange={(event) => setModels(event.target.value)} />
          )}
        />
        {LIMITS.map(([name, label]) => (
          <Field
            key={name}
            label={label}
            control={(id) => (
              <input
                id={id}
                inputMode="numeric"
                value={values[name]}
                onChange={(event) => setValues({ ...values, [name]: event.target.value })}
              />
            )}
          />
        ))}
        <button type="submit" className="button primary" disabled={state.busy}>
          Save {tier.tier}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Close
        </button>
      </div>
      <div className="policy-outcome">
        <FormOutcome error={state.error} done={state.done} />
      </div>
      {pending && (
        <ConfirmDialog
          title={`Change the ${tier.tier} tier?`}
          message={
            <>
              <ul className="usage-list">
                {pending.lines.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              <p className="small muted">
                The next request of every account on the tier is held to it, on every node within seconds.
              </p>
            </>
          }
          confirmLabel="Save the change"
          onConfirm={() => save(pending.body)}
          onCancel={() => setPending(undefined)}
        />
      )}
    </form>
  );
}
