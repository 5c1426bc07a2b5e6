import { useState } from 'react';
import type { AdminAccount } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { navigate } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { Field, FormOutcome } from '../../ui/form-fields';

/**
 * The account's data: its export (a ZIP of its works and uploads, streamed) and its erase, which
 * goes ahead only once the account's e-mail is typed again (docs/operations.md, Data lifecycle).
 */
export function AccountData({ account }: { account: AdminAccount }) {
  const [confirm, setConfirm] = useState('');
  const state = useAction();
  const path = `/api/admin/v1/accounts/${encodeURIComponent(account.id)}`;
  const named = confirm.trim().toLowerCase() === account.email.toLowerCase();

  const erase = () =>
    state.run(async () => {
      const answer = await api.post<{ status: 'erased' | 'pending' }>(`${path}/erase`, {
        confirm: confirm.trim(),
      });
      if (answer.status === 'erased') navigate('/admin');
      return 'Erase begun: its credentials are gone; a task of it was still running, and the housekeeping finishes the erase.';
    });

  return (
    <div className="stack">
      <p>
        <a className="button" href={`${path}/export`} download>
          Export works and uploads (ZIP)
        </a>
      </p>
      <form
        className="admin-filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (named) void erase();
        }}
      >
        <Field
          label={`Type ${account.email} to erase this account for good`}
          control={(id) => (
            <input
              id={id}
              value={confirm}
              autoComplete="off"
              onChange={(event) => setConfirm(event.target.value)}
            />
          )}
        />
        <button type="submit" className="button danger" disabled={!named || state.busy}>
          Erase account
        </button>
      </form>
      <p className="small muted">
        Erasing removes its keys, sessions, works, uploads, collections, webhooks and files (those no other
        account uses); its usage stays only in the deployment's anonymous totals.
      </p>
      <FormOutcome error={state.error} done={state.done} />
    </div>
  );
}
