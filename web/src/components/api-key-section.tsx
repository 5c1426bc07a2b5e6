import { type FormEvent, useId, useState } from 'react';
import { api } from '../lib/api';
import type { AccountInfo } from '../lib/types';
import { useAction } from '../lib/use-action';
import { CopyButton } from './copy-button';
import { Dialog } from './dialog';
import { FormOutcome, PasswordField } from './form-fields';

/** Asks for the password again, then rotates: a stolen session alone cannot mint a key. */
function RotateDialog({
  onRotated,
  onCancel,
}: {
  onRotated: (apiKey: string) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const rotation = useAction();
  const passwordId = useId();

  const rotate = (event: FormEvent) => {
    event.preventDefault();
    void rotation.run(async () => {
      const result = await api.post<{ api_key: string }>('/web/api/account/api-key', { password });
      onRotated(result.api_key);
    });
  };

  return (
    <Dialog title="Rotate the API key?" onClose={onCancel}>
      <form className="stack" onSubmit={rotate}>
        <p>
          A new key is created and the current one stops working at once. Scripts and agents using it will
          need the new key.
        </p>
        <PasswordField
          id={passwordId}
          label="Your password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
        />
        <FormOutcome error={rotation.error} />
        <div className="row end">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button danger" disabled={rotation.busy}>
            {rotation.busy ? 'Working…' : 'Rotate key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The API key's hint, its rotation (password asked again) and the new key, shown once. */
export function ApiKeySection({ account, onRotated }: { account: AccountInfo; onRotated: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState<string>();
  const keyId = useId();

  return (
    <div className="stack">
      <p>
        Current key: <code>{account.api_key_hint ?? 'unknown'}</code>
      </p>
      {newKey ? (
        <div className="key-reveal stack" role="status">
          <label className="field-label" htmlFor={keyId}>
            Your new API key — shown once
          </label>
          <div className="row">
            <input
              id={keyId}
              className="mono grow"
              readOnly
              value={newKey}
              onFocus={(event) => event.target.select()}
            />
            <CopyButton text={newKey} label="Copy key" />
          </div>
          <p className="muted small">
            Store it now: Atelier keeps only a hash. The previous key no longer works.
          </p>
        </div>
      ) : null}
      <div>
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          Rotate API key
        </button>
      </div>
      {confirming && (
        <RotateDialog
          onRotated={(apiKey) => {
            setNewKey(apiKey);
            setConfirming(false);
            onRotated();
          }}
          onCancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
