import { type FormEvent, useId, useState } from 'react';
import { api, signedOutHere } from '../lib/api';
import { useAction } from '../lib/use-action';
import { ConfirmDialog } from './dialog';

/** Change the password: the current one, then the new one twice. Every other session ends. */
function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const state = useAction();
  const ids = { current: useId(), next: useId(), repeat: useId() };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next.length < 8) return state.fail('The new password must be at least 8 characters.');
    if (next !== repeat) return state.fail('The new password and its repetition differ.');
    await state.run(async () => {
      await api.post('/web/api/account/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      setRepeat('');
      return 'Password changed. Every other browser signed in to this account has been signed out.';
    });
  };

  return (
    <form className="stack" onSubmit={submit}>
      <div className="field">
        <label className="field-label" htmlFor={ids.current}>
          Current password
        </label>
        <input
          id={ids.current}
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(event) => setCurrent(event.target.value)}
        />
      </div>
      <div className="field-pair">
        <div className="field grow">
          <label className="field-label" htmlFor={ids.next}>
            New password
          </label>
          <input
            id={ids.next}
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
            value={next}
            onChange={(event) => setNext(event.target.value)}
          />
        </div>
        <div className="field grow">
          <label className="field-label" htmlFor={ids.repeat}>
            New password again
          </label>
          <input
            id={ids.repeat}
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(event) => setRepeat(event.target.value)}
          />
        </div>
      </div>
      {state.error && (
        <p className="error-text" role="alert">
          {state.error}
        </p>
      )}
      {state.done && (
        <p className="success-text" role="status">
          {state.done}
        </p>
      )}
      <div>
        <button type="submit" className="button primary" disabled={state.busy}>
          Change password
        </button>
      </div>
    </form>
  );
}

/** Ends every session of the account, this one included. */
function SignOutEverywhere() {
  const [confirming, setConfirming] = useState(false);
  const state = useAction();
  const signOut = () =>
    state.run(async () => {
      await api.delete('/web/api/sessions');
      signedOutHere();
    });

  return (
    <div className="stack">
      <p className="muted small">
        Lost a device, or signed in on a shared computer? End every session of this account, on every browser,
        this one included. Your API key keeps working.
      </p>
      <div>
        <button type="button" className="button" onClick={() => setConfirming(true)}>
          Sign out everywhere
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title="Sign out everywhere?"
          message={<p>Every browser signed in to this account, this one included, is signed out.</p>}
          confirmLabel="Sign out everywhere"
          danger
          busy={state.busy}
          error={state.error}
          onConfirm={signOut}
          onCancel={() => {
            setConfirming(false);
            state.reset();
          }}
        />
      )}
    </div>
  );
}

/** The account page's sign-in section: the password and the sessions. */
export function SignInSecurity() {
  return (
    <div className="stack">
      <PasswordForm />
      <SignOutEverywhere />
    </div>
  );
}
