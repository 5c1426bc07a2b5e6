import { useCallback, useEffect, useState } from 'react';
import type {
  AlertDeliveriesWire,
  AlertRulesWire,
  AlertRuleWire,
  CreatedAlertWire,
} from '../../../../src/base/contract/admin-alerts';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { FormOutcome } from '../../ui/form-fields';
import { KeyReveal } from '../../ui/key-reveal';
import { AdminTable, HeadRow, LoadState, num, when } from './admin-kit';
import { AlertForm, KIND_WORDS, paramsText, type RuleFields } from './alert-form';

const PATH = '/api/admin/v1/alerts';
const rulePath = (rule: AlertRuleWire) => `${PATH}/${encodeURIComponent(rule.id)}`;

/** Alert rules (one webhook per kind of event), their test message and recent deliveries. */
export default function AlertsPage() {
  const [rules, setRules] = useState<AlertRuleWire[]>();
  const [deliveries, setDeliveries] = useState<AlertDeliveriesWire['deliveries']>();
  const [created, setCreated] = useState<CreatedAlertWire>();
  const [editing, setEditing] = useState<AlertRuleWire>();
  const [deleting, setDeleting] = useState<AlertRuleWire>();
  // A new key for the New rule form empties it once a rule is created.
  const [formKey, setFormKey] = useState(0);
  const load = useAction();
  const change = useAction();
  const loadRun = load.run;
  const refresh = useCallback(
    () =>
      loadRun(async () => {
        const [list, recent] = await Promise.all([
          api.get<AlertRulesWire>(PATH),
          api.get<AlertDeliveriesWire>(`${PATH}/deliveries`),
        ]);
        setRules(list.rules);
        setDeliveries(recent.deliveries);
      }),
    [loadRun],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const act = (work: () => Promise<string>) =>
    void change.run(async () => {
      const done = await work();
      await refresh();
      return done;
    });
  const create = (fields: RuleFields) =>
    act(async () => {
      const rule = await api.post<CreatedAlertWire>(PATH, fields);
      setCreated(rule);
      setFormKey((key) => key + 1);
      return 'Alert rule created.';
    });
  const save = (rule: AlertRuleWire, fields: RuleFields) =>
    act(async () => {
      const { kind: _kind, ...patch } = fields;
      await api.patch(rulePath(rule), patch);
      setEditing(undefined);
      return 'Alert rule saved.';
    });
  const remove = (rule: AlertRuleWire) => {
    setDeleting(undefined);
    act(async () => {
      await api.delete(rulePath(rule));
      if (created?.id === rule.id) setCreated(undefined);
      return 'Alert rule deleted.';
    });
  };
  const test = (rule: AlertRuleWire) =>
    act(async () => {
      await api.post(`${rulePath(rule)}/test`, {});
      return `Test alert sent to ${rule.url}.`;
    });

  return (
    <div className="stack">
      <section className="panel stack" aria-labelledby="alert-rules-heading">
        <h2 id="alert-rules-heading">Alert rules</h2>
        <p className="small muted">
          Each rule posts to its webhook when its event happens, once per event whichever node sees it, signed
          like task webhooks with the rule’s own secret and retried when the receiver fails.
        </p>
        <LoadState error={load.error} loading={load.busy && !rules} />
        {rules?.length === 0 && <p>No alert rule yet: create one below.</p>}
        {rules && rules.length > 0 && (
          <RulesTable
            rules={rules}
            busy={change.busy}
            onEdit={setEditing}
            onDelete={setDeleting}
            onTest={test}
          />
        )}
        <FormOutcome error={change.error} done={change.done} />
        {created && (
          <KeyReveal label={`Signing secret of the new rule — shown once`} apiKey={created.secret}>
            <p className="small muted">Verify each alert’s webhook-signature header with it.</p>
          </KeyReveal>
        )}
        <h3>New rule</h3>
        <AlertForm key={formKey} busy={change.busy} onSubmit={create} />
      </section>
      <Deliveries deliveries={deliveries} onRefresh={() => void refresh()} />
      {editing && (
        <Dialog title={`Change the rule: ${KIND_WORDS[editing.kind]}`} onClose={() => setEditing(undefined)}>
          <AlertForm rule={editing} busy={change.busy} onSubmit={(fields) => save(editing, fields)} />
        </Dialog>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete the alert rule?"
          message={
            <p>
              “{KIND_WORDS[deleting.kind]}” to <code>{deleting.url}</code> stops at once; its pending
              deliveries are not sent.
            </p>
          }
          confirmLabel="Delete rule"
          danger
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </div>
  );
}

/** The rules, each with Edit, Test and Delete. */
function RulesTable({
  rules,
  busy,
  onEdit,
  onDelete,
  onTest,
}: {
  rules: AlertRuleWire[];
  busy: boolean;
  onEdit: (rule: AlertRuleWire) => void;
  onDelete: (rule: AlertRuleWire) => void;
  onTest: (rule: AlertRuleWire) => void;
}) {
  return (
    <AdminTable
      caption="Alert rules"
      head={<HeadRow columns={['When', 'Webhook', 'Format', 'Thresholds', 'State', 'Actions']} />}
    >
      {rules.map((rule) => (
        <tr key={rule.id} data-rule={rule.kind}>
          <td>{KIND_WORDS[rule.kind]}</td>
          <td className="small">
            <code>{rule.url}</code>
          </td>
          <td>{rule.format === 'slack' ? 'Slack' : 'Standard'}</td>
          <td>{paramsText(rule)}</td>
          <td>
            <span className={rule.enabled ? 'badge state-good' : 'badge'}>
              {rule.enabled ? 'enabled' : 'disabled'}
            </span>
          </td>
          <td>
            {/* Named by aria-label, not by visually hidden text: hidden text is positioned against the
                page, not the scrolling table, and would widen a narrow page. */}
            <div className="row-actions">
              <button
                type="button"
                className="button small"
                disabled={busy}
                aria-label={`Test: ${KIND_WORDS[rule.kind]}`}
                onClick={() => onTest(rule)}
              >
                Test
              </button>
              <button
                type="button"
                className="button small"
                aria-label={`Edit: ${KIND_WORDS[rule.kind]}`}
                onClick={() => onEdit(rule)}
              >
                Edit
              </button>
              <button
                type="button"
                className="button small danger"
                aria-label={`Delete: ${KIND_WORDS[rule.kind]}`}
                onClick={() => onDelete(rule)}
              >
                Delete
              </button>
            </div>
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

const STATE_CLASS = { succeeded: 'badge state-good', failed: 'badge state-bad', pending: 'badge' };

/** The newest deliveries with their attempts, last answer and next retry. */
function Deliveries({
  deliveries,
  onRefresh,
}: {
  deliveries: AlertDeliveriesWire['deliveries'] | undefined;
  onRefresh: () => void;
}) {
  return (
    <section className="panel stack" aria-labelledby="alert-deliveries-heading">
      <div className="row">
        <h2 id="alert-deliveries-heading" className="grow">
          Recent deliveries
        </h2>
        <button type="button" className="button small" onClick={onRefresh}>
          Refresh
        </button>
      </div>
      {deliveries?.length === 0 && <p>No alert has been sent yet.</p>}
      {deliveries && deliveries.length > 0 && (
        <AdminTable
          caption="Recent alert deliveries"
          head={
            <HeadRow columns={['Created', 'Event', 'State', num('Attempts'), 'Last answer', 'Next retry']} />
          }
        >
          {deliveries.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>{when(d.created_at)}</td>
              <td>{d.kind === 'test' ? 'test' : KIND_WORDS[d.kind]}</td>
              <td>
                <span className={STATE_CLASS[d.state]}>{d.state}</span>
              </td>
              <td className="num">{d.attempts}</td>
              <td className="small">
                {d.last_error ?? (d.last_status_code === null ? '—' : `HTTP ${d.last_status_code}`)}
              </td>
              <td>{when(d.next_attempt_at)}</td>
            </tr>
          ))}
        </AdminTable>
      )}
    </section>
  );
}
