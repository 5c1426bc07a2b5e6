import { type FormEvent, useId, useState } from 'react';
import { api, signedOutHere } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog } from '../../ui/dialog';
import { FormOutcome, PasswordField } from '../../ui/form-fields';
import { NewPasswordFields, newPasswordProblem } from './new-password';

/** Change the password: the current one, then the new one twice. Every other session ends. */
function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const state = useAction();
  const currentId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problem = newPasswordProblem(next, repeat);
    if (problem) return state.fail(problem);
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
      <PasswordField
        id={currentId}
        label="Current password"
        value={current}
        onChange={setCurrent}
        autoComplete="current-password"
      />
      <NewPasswordFields next={next} onNext={setNext} repeat={repeat} onRepeat={setRepeat} paired />
      <FormOutcome error={state.error} done={state.done} />
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
