import { type FormEvent, useState } from 'react';
import type {
  AlertFormat,
  AlertKind,
  AlertParams,
  AlertRuleWire,
} from '../../../../src/base/contract/admin-alerts';
import { Field } from '../../ui/form-fields';

/** What each kind alerts on, in words. */
export const KIND_WORDS: Record<AlertKind, string> = {
  'upstream.breaker_open': 'An upstream’s circuit breaker opens',
  'key_pool.key_removed': 'A key is taken out of its pool',
  'budget.threshold': 'A budget crosses a threshold',
  'tasks.failure_rate': 'A route fails above a rate',
};

const KINDS = Object.keys(KIND_WORDS) as AlertKind[];

/** A rule's thresholds in words ("80%, 100%"; "≥ 50% of tasks, at least 10 failures, 10 min"). */
export function paramsText(rule: AlertRuleWire): string {
  const p = rule.params;
  if (rule.kind === 'budget.threshold')
    return `${(p.thresholds ?? [80, 100]).map((t) => `${t}%`).join(', ')}`;
  if (rule.kind === 'tasks.failure_rate')
    return `≥ ${Math.round((p.rate ?? 0.5) * 100)}% failed, at least ${p.min_count ?? 10}, over ${Math.round((p.window_seconds ?? 600) / 60)} min`;
  return '—';
}

/** What the form sends: a new rule's fields, or a rule's changes. */
export interface RuleFields {
  kind: AlertKind;
  url: string;
  format: AlertFormat;
  params: AlertParams;
  enabled: boolean;
}

/** The thresholds a kind takes, from the form's text fields (absent: the default applies). */
function paramsOf(kind: AlertKind, text: { thresholds: string; rate: string; min: string; window: string }) {
  if (kind === 'budget.threshold' && text.thresholds.trim())
    return {
      thresholds: text.thresholds
        .split(/[,\s]+/)
        .filter(Boolean)
        .map(Number),
    };
  if (kind !== 'tasks.failure_rate') return {};
  return {
    ...(text.rate.trim() ? { rate: Number(text.rate) / 100 } : {}),
    ...(text.min.trim() ? { min_count: Number(text.min) } : {}),
    ...(text.window.trim() ? { window_seconds: Number(text.window) * 60 } : {}),
  };
}

/** Creates a rule (`rule` absent) or changes one: kind (new rules only), URL, format, thresholds. */
export function AlertForm({
  rule,
  busy,
  onSubmit,
}: {
  rule?: AlertRuleWire | undefined;
  busy: boolean;
  onSubmit: (fields: RuleFields) => void;
}) {
  const [kind, setKind] = useState<AlertKind>(rule?.kind ?? 'upstream.breaker_open');
  const [url, setUrl] = useState(rule?.url ?? '');
  const [format, setFormat] = useState<AlertFormat>(rule?.format ?? 'standard');
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const [thresholds, setThresholds] = useState(rule?.params.thresholds?.join(', ') ?? '');
  const [rate, setRate] = useState(rule?.params.rate === undefined ? '' : String(rule.params.rate * 100));
  const [min, setMin] = useState(rule?.params.min_count === undefined ? '' : String(rule.params.min_count));
  const [minutes, setMinutes] = useState(
    rule?.params.window_seconds === undefined ? '' : String(rule.params.window_seconds / 60),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({
      kind,
      url,
      format,
      enabled,
      params: paramsOf(kind, { thresholds, rate, min, window: minutes }),
    });
  };
  const text = (label: string, value: string, set: (v: string) => void, type = 'text') => (
    <Field
      label={label}
      control={(id) => (
        <input id={id} type={type} value={value} onChange={(event) => set(event.target.value)} />
      )}
    />
  );
  return (
    <form
      className="stack"
      onSubmit={submit}
      aria-label={rule ? 'Change the alert rule' : 'Create an alert rule'}
    >
      <div className="admin-filters">
        {!rule && (
          <Field
            label="When"
            control={(id) => (
              <select id={id} value={kind} onChange={(event) => setKind(event.target.value as AlertKind)}>
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {KIND_WORDS[k]}
                  </option>
                ))}
              </select>
            )}
          />
        )}
        <Field
          label="Webhook URL"
          className="field grow"
          control={(id) => (
            <input id={id} type="url" required value={url} onChange={(event) => setUrl(event.target.value)} />
          )}
        />
        <Field
          label="Format"
          control={(id) => (
            <select id={id} value={format} onChange={(event) => setFormat(event.target.value as AlertFormat)}>
              <option value="standard">Standard (JSON)</option>
              <option value="slack">Slack incoming webhook</option>
            </select>
          )}
        />
        {kind === 'budget.threshold' && text('Thresholds, % (default 80, 100)', thresholds, setThresholds)}
        {kind === 'tasks.failure_rate' && (
          <>
            {text('Failure rate, % (default 50)', rate, setRate, 'number')}
            {text('At least, failures (default 10)', min, setMin, 'number')}
            {text('Window, minutes (default 10)', minutes, setMinutes, 'number')}
          </>
        )}
        <label className="row">
          <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
          Enabled
        </label>
        <button type="submit" className="button primary" disabled={busy}>
          {rule ? 'Save rule' : 'Create rule'}
        </button>
      </div>
    </form>
  );
}
