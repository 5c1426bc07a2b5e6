import { type FormEvent, useState } from 'react';
import type { ApiKeyInfo } from '../../../../src/base/contract/api-keys';
import { api } from '../../lib/api';
import { formatDate, formatWhen } from '../../lib/format';
import type { AccountInfo } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog, Dialog } from '../../ui/dialog';
import { KeyReveal } from '../../ui/key-reveal';
import { CreateKeyDialog } from './api-key-create';
import { KeyRetentionDialog, retentionText } from './api-key-retention';
import { PasswordConfirm } from './password-confirm';
import { useRevocableList } from './revocable-list';

/**
 * Asks for the password again, then rotates the default key (every full key named "default" is
 * revoked, a new one made): a stolen session alone cannot mint a key.
 */
function RotateDialog({
  onRotated,
  onCancel,
}: {
  onRotated: (apiKey: string) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const rotation = useAction();

  const rotate = (event: FormEvent) => {
    event.preventDefault();
    void rotation.run(async () => {
      const result = await api.post<{ api_key: string }>('/web/api/account/api-key', { password });
      onRotated(result.api_key);
    });
  };

  return (
    <Dialog title="Rotate the default API key?" onClose={onCancel}>
      <form className="stack" onSubmit={rotate}>
        <p>
          A new key named “default” is created and the current default key stops working at once. Scripts and
          agents using it will need the new key; your other keys are not affected.
        </p>
        <PasswordConfirm
          password={password}
          onPassword={setPassword}
          error={rotation.error}
          busy={rotation.busy}
          submitLabel="Rotate key"
          tone="danger"
          onCancel={onCancel}
        />
      </form>
    </Dialog>
  );
}

const SCOPE_LABELS = { full: 'Full', read: 'Read only' } as const;

/** When a key expires, or that it has. */
function expiryText(key: ApiKeyInfo): string {
  if (key.expires_at === null) return 'Never';
  return key.expired ? `Expired ${formatDate(key.expires_at)}` : formatDate(key.expires_at);
}

/**
 * The account's API keys (issue 31): listed with name, scope, hint, created, last used and expiry;
 * created (name, scope, expiry; the key shown once), revoked after a confirmation; and the default
 * key's rotation (password asked again).
 */
export function ApiKeySection({ onRotated }: { account: AccountInfo; onRotated: () => void }) {
  const [dialog, setDialog] = useState<'rotate' | 'create'>();
  const [revealed, setRevealed] = useState<{ apiKey: string; note: string }>();
  const [retaining, setRetaining] = useState<ApiKeyInfo>();
  const {
    items: keys,
    load,
    listing,
    revoking,
    askToRevoke,
    confirming,
  } = useRevocableList<ApiKeyInfo>('/web/api/account/keys', 'keys');

  return (
    <div className="stack">
      {revealed ? (
        <KeyReveal label="Your new API key — shown once" apiKey={revealed.apiKey}>
          <p className="muted small">Store it now: Atelier keeps only a hash. {revealed.note}</p>
        </KeyReveal>
      ) : null}
      {listing.error ? (
        <p className="error-text" role="alert">
          {listing.error}
        </p>
      ) : null}
      {keys && keys.length > 0 ? (
        <div className="table-scroll">
          <table className="deliveries api-keys">
            <caption className="field-label">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scope</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Retention</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>{SCOPE_LABELS[key.scope]}</td>
                  <td className="mono small">{key.hint}</td>
                  <td className="small">{formatDate(key.created_at)}</td>
                  <td className="small">
                    {key.last_used_at === null ? 'Never' : formatWhen(key.last_used_at)}
                  </td>
                  <td className="small">{expiryText(key)}</td>
                  <td className="small">{retentionText(key)}</td>
                  <td>
                    <button
                      type="button"
                      className="button small"
                      aria-label={`Retention of ${key.name} (${key.hint})`}
                      onClick={() => setRetaining(key)}
                    >
                      Retention
                    </button>{' '}
                    <button
                      type="button"
                      className="button small"
                      aria-label={`Revoke ${key.name} (${key.hint})`}
                      onClick={() => askToRevoke(key)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : keys ? (
        <p className="muted small">No working keys. Create one to call the API.</p>
      ) : null}
      <div className="row">
        <button type="button" className="button primary" onClick={() => setDialog('create')}>
          Create API key
        </button>
        <button type="button" className="button" onClick={() => setDialog('rotate')}>
          Rotate default key
        </button>
      </div>
      {dialog === 'create' && (
        <CreateKeyDialog
          onCreated={(created) => {
            setRevealed({ apiKey: created.api_key, note: `It is listed as “${created.key.name}”.` });
            setDialog(undefined);
            void load();
          }}
          onCancel={() => setDialog(undefined)}
        />
      )}
      {dialog === 'rotate' && (
        <RotateDialog
          onRotated={(apiKey) => {
            setRevealed({ apiKey, note: 'The previous default key no longer works.' });
            setDialog(undefined);
            onRotated();
            void load();
          }}
          onCancel={() => setDialog(undefined)}
        />
      )}
      {retaining && (
        <KeyRetentionDialog
          apiKey={retaining}
          onSaved={() => {
            setRetaining(undefined);
            void load();
          }}
          onCancel={() => setRetaining(undefined)}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke the key “${revoking.name}”?`}
          message={
            <p>
              <code>{revoking.hint}</code> stops working at once, on every node: whatever uses it gets 401.
              This cannot be undone.
            </p>
          }
          confirmLabel="Revoke key"
          {...confirming(revoking)}
        />
      )}
    </div>
  );
}
