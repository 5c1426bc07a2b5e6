import { type FormEvent, useId, useState } from 'react';
import type { CreatedApiKey } from '../../../../src/base/contract/api-keys';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../../ui/dialog';
import { Field } from '../../ui/form-fields';
import { PasswordConfirm } from './password-confirm';

const DAY_MS = 86_400_000;
/** The expiries offered (days; 0 for never). */
const EXPIRIES = [
  { days: 0, label: 'Never' },
  { days: 7, label: 'In 7 days' },
  { days: 30, label: 'In 30 days' },
  { days: 90, label: 'In 90 days' },
  { days: 365, label: 'In a year' },
] as const;

/**
 * A new key: name, scope, expiry, and the password asked again (a stolen session alone cannot mint
 * a key). The key itself comes back once, to `onCreated`.
 */
export function CreateKeyDialog({
  onCreated,
  onCancel,
}: {
  onCreated: (created: CreatedApiKey) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'read'>('full');
  const [days, setDays] = useState<number>(0);
  const [password, setPassword] = useState('');
  const creation = useAction();
  const scopeHelpId = useId();

  const create = (event: FormEvent) => {
    event.preventDefault();
    void creation.run(async () => {
      const expiresAt = days === 0 ? null : Date.now() + days * DAY_MS;
      onCreated(
        await api.post<CreatedApiKey>('/web/api/account/keys', {
          name,
          scope,
          expires_at: expiresAt,
          password,
        }),
      );
    });
  };

  return (
    <Dialog title="Create an API key" onClose={onCancel}>
      <form className="stack" onSubmit={create}>
        <Field
          label="Name"
          control={(id) => (
            <input
              id={id}
              required
              maxLength={64}
              value={name}
              placeholder="e.g. dashboard, CI, my agent"
              onChange={(event) => setName(event.target.value)}
              data-autofocus
            />
          )}
        />
        <Field
          label="Scope"
          control={(id) => (
            <>
              <select
                id={id}
                value={scope}
                aria-describedby={scopeHelpId}
                onChange={(event) => setScope(event.target.value === 'read' ? 'read' : 'full')}
              >
                <option value="full">Full — generate, upload and everything else</option>
                <option value="read">Read only — tasks, history, status and usage</option>
              </select>
              <p id={scopeHelpId} className="muted small">
                A read-only key suits dashboards: it is refused (403) wherever a request would create, change
                or spend.
              </p>
            </>
          )}
        />
        <Field
          label="Expires"
          control={(id) => (
            <select id={id} value={days} onChange={(event) => setDays(Number(event.target.value))}>
              {EXPIRIES.map((expiry) => (
                <option key={expiry.days} value={expiry.days}>
                  {expiry.label}
                </option>
              ))}
            </select>
          )}
        />
        <PasswordConfirm
          password={password}
          onPassword={setPassword}
          error={creation.error}
          busy={creation.busy}
          submitLabel="Create key"
          tone="primary"
          onCancel={onCancel}
        />
      </form>
    </Dialog>
  );
}
