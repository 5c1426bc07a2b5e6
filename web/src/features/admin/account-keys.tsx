import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { AdminApiKey, AdminCreatedKey } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { Field, FormOutcome } from '../../ui/form-fields';
import { KeyReveal } from '../../ui/key-reveal';
import { BudgetForm } from './account-budget';
import { AdminTable, budgetText, HeadRow, LoadState, when } from './admin-kit';

/** An account's API keys: the list, a new key (shown once) and revocation. */
export function AccountKeys({ accountId }: { accountId: string }) {
  const base = `/api/admin/v1/accounts/${encodeURIComponent(accountId)}/keys`;
  const [keys, setKeys] = useState<AdminApiKey[]>();
  const [issued, setIssued] = useState<AdminCreatedKey>();
  const [revoking, setRevoking] = useState<AdminApiKey>();
  const [budgeting, setBudgeting] = useState<AdminApiKey>();
  const load = useAction();
  const change = useAction();
  const loadRun = load.run;

  const refresh = useCallback(
    () => loadRun(async () => setKeys((await api.get<{ keys: AdminApiKey[] }>(base)).keys)),
    [loadRun, base],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const revoke = (key: AdminApiKey) => {
    setRevoking(undefined);
    void change.run(async () => {
      await api.delete(`${base}/${encodeURIComponent(key.id)}`);
      if (issued?.key.id === key.id) setIssued(undefined);
      await refresh();
      return `Key “${key.name}” revoked.`;
    });
  };

  return (
    <div className="stack">
      <LoadState error={load.error} loading={load.busy && !keys} />
      {keys && <KeysTable keys={keys} onBudget={setBudgeting} onRevoke={setRevoking} />}
      {keys?.length === 0 && <p className="muted">No working key: the account cannot use the API.</p>}
      <IssueKeyForm base={base} change={change} onIssued={setIssued} refresh={refresh} />
      <FormOutcome error={change.error} done={change.done} />
      {issued && <KeyReveal label={`The key “${issued.key.name}” — shown once`} apiKey={issued.api_key} />}
      {revoking && (
        // Whatever uses the key stops working at once: asked first.
        <ConfirmDialog
          title={`Revoke the key “${revoking.name}”?`}
          message={
            <p>
              <code>{revoking.hint}</code> stops working at once, on every node. Whatever uses it will get
              401.
            </p>
          }
          confirmLabel="Revoke key"
          danger
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        />
      )}
      {budgeting && (
        <Dialog title={`Budgets of the key “${budgeting.name}”`} onClose={() => setBudgeting(undefined)}>
          <BudgetForm
            path={`${base}/${encodeURIComponent(budgeting.id)}/budget`}
            budget={budgeting.budget}
            holds="This key's requests (its account's budgets hold them too)"
            onSaved={() => void refresh()}
          />
        </Dialog>
      )}
    </div>
  );
}

/** The working keys, each with its Budget and Revoke. */
function KeysTable({
  keys,
  onBudget,
  onRevoke,
}: {
  keys: AdminApiKey[];
  onBudget: (key: AdminApiKey) => void;
  onRevoke: (key: AdminApiKey) => void;
}) {
  return (
    <AdminTable
      caption="Working keys"
      head={
        <HeadRow
          columns={[
            'Name',
            'Key',
            'Scope',
            'Created',
            'Last used',
            'Expires',
            'Budget',
            { name: 'Actions', hidden: true },
          ]}
        />
      }
    >
      {keys.map((key) => (
        <tr key={key.id}>
          <td>{key.name}</td>
          <td>
            <code>{key.hint}</code>
          </td>
          <td>{key.scope}</td>
          <td>{when(key.created_at)}</td>
          <td>{when(key.last_used_at)}</td>
          <td>{key.expires_at === null ? 'never' : when(key.expires_at)}</td>
          <td>{budgetText(key.budget)}</td>
          <td className="row-actions">
            <button type="button" className="button small" onClick={() => onBudget(key)}>
              Budget<span className="visually-hidden"> of {key.name}</span>
            </button>
            <button type="button" className="button small danger" onClick={() => onRevoke(key)}>
              Revoke<span className="visually-hidden"> {key.name}</span>
            </button>
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

/** "Issue a key": its name, scope and optional last day; the new key is shown once. */
function IssueKeyForm({
  base,
  change,
  onIssued,
  refresh,
}: {
  base: string;
  change: ReturnType<typeof useAction>;
  onIssued: (issued: AdminCreatedKey) => void;
  refresh: () => Promise<unknown>;
}) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'read'>('full');
  const [expires, setExpires] = useState('');
  const issue = (event: FormEvent) => {
    event.preventDefault();
    void change.run(async () => {
      // A date field's day ends at the reader's midnight: the key works through that whole day.
      const expiresAt = expires ? new Date(`${expires}T23:59:59`).getTime() : null;
      const answer = await api.post<AdminCreatedKey>(base, { name, scope, expires_at: expiresAt });
      onIssued(answer);
      setName('');
      setExpires('');
      await refresh();
      return `Key “${answer.key.name}” issued.`;
    });
  };
  return (
    <form className="admin-filters" onSubmit={issue} aria-label="Issue a key">
      <Field
        label="New key’s name"
        className="field grow"
        control={(id) => (
          <input
            id={id}
            required
            maxLength={64}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        )}
      />
      <Field
        label="Scope"
        control={(id) => (
          <select id={id} value={scope} onChange={(event) => setScope(event.target.value as 'full' | 'read')}>
            <option value="full">full</option>
            <option value="read">read (polls, history, status, usage)</option>
          </select>
        )}
      />
      <Field
        label="Expires (optional)"
        control={(id) => (
          <input id={id} type="date" value={expires} onChange={(event) => setExpires(event.target.value)} />
        )}
      />
      <button type="submit" className="button primary" disabled={change.busy}>
        Issue key
      </button>
    </form>
  );
}
