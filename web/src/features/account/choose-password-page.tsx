import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import { PasswordField } from '../../ui/form-fields';
import { Logo } from '../../ui/icons';
import { NewPasswordFields, newPasswordProblem } from './new-password';

/**
 * After an operator reset the account's password, the one thing its session may do (every other
 * call answers 403 password_change_required): the person sets their own. The password just typed
 * at sign-in is asked for again only when this tab does not hold it (a reload).
 */
export default function ChoosePasswordPage({
  email,
  signInPassword,
  onChanged,
  onSignOut,
}: {
  email: string;
  /** The password this tab signed in with a moment ago, if it did. */
  signInPassword: string | undefined;
  onChanged: () => void;
  onSignOut: () => void;
}) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ids = { current: useId(), error: useId(), intro: useId() };
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = 'Choose a new password · Atelier';
    headingRef.current?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const oneTime = signInPassword ?? current;
    const problem = newPasswordProblem(next, repeat);
    if (problem) return setError(problem);
    if (next === oneTime) return setError('Choose a password other than the one you were given.');
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/web/api/account/password', { current_password: oneTime, new_password: next });
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <form
        className="panel sign-in-card stack"
        onSubmit={submit}
        aria-labelledby={`${ids.intro}-heading`}
        aria-describedby={error ? `${ids.intro} ${ids.error}` : ids.intro}
      >
        <div className="brand large">
          <Logo />
          <span>Atelier</span>
        </div>
        <h1 id={`${ids.intro}-heading`} ref={headingRef} tabIndex={-1}>
          Choose a new password
        </h1>
        <p id={ids.intro} className="muted">
          An operator set the password of <strong>{email}</strong>. Choose your own to continue; the one you
          were given stops working.
        </p>
        {signInPassword === undefined && (
          <PasswordField
            id={ids.current}
            label="Password you were given"
            value={current}
            onChange={setCurrent}
            autoComplete="current-password"
          />
        )}
        <NewPasswordFields next={next} onNext={setNext} repeat={repeat} onRepeat={setRepeat} />
        {error && (
          <p className="error-text" role="alert" id={ids.error}>
            {error}
          </p>
        )}
        <button type="submit" className="button primary large" disabled={busy}>
          {busy ? 'Saving…' : 'Set password and continue'}
        </button>
        <button type="button" className="button ghost" onClick={onSignOut}>
          Sign out
        </button>
      </form>
    </main>
  );
}
