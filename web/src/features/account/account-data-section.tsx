import { type FormEvent, useId, useState } from 'react';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { PasswordConfirm } from './password-confirm';

/**
 * The account's data: download everything (a ZIP of its works and uploads with metadata.json), and
 * erase the account for good, once its e-mail is typed again and the password given.
 */
export function AccountDataSection({ email }: { email: string }) {
  const [erasing, setErasing] = useState(false);
  const [confirm, setConfirm] = useState('');
  const [password, setPassword] = useState('');
  const state = useAction();
  const confirmId = useId();
  const named = confirm.trim().toLowerCase() === email.toLowerCase();

  const erase = async (event: FormEvent) => {
    event.preventDefault();
    if (!named) return state.fail(`Type ${email} to confirm.`);
    await state.run(async () => {
      await api.post('/web/api/account/erase', { confirm: confirm.trim(), password });
      window.location.assign('/');
      return 'Account erased.';
    });
  };

  return (
    <div className="stack">
      <p>
        <a className="button" href="/web/api/account/export" download>
          Download all my works and uploads (ZIP)
        </a>
      </p>
      {!erasing ? (
        <p>
          <button type="button" className="button danger" onClick={() => setErasing(true)}>
            Erase my account…
          </button>
        </p>
      ) : (
        <form className="stack" onSubmit={erase} aria-label="Erase my account">
          <p>
            This erases your account for good: API keys, sessions, works, uploads, collections, webhooks and
            settings. It cannot be undone; download your works first if you want to keep them.
          </p>
          <label className="field-label" htmlFor={confirmId}>
            Type {email} to confirm
          </label>
          <input
            id={confirmId}
            value={confirm}
            autoComplete="off"
            onChange={(event) => setConfirm(event.target.value)}
          />
          <PasswordConfirm
            password={password}
            onPassword={setPassword}
            error={state.error}
            busy={state.busy}
            submitLabel="Erase my account"
            tone="danger"
            onCancel={() => setErasing(false)}
          />
        </form>
      )}
    </div>
  );
}
