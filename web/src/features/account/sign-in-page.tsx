import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import type { SessionInfo } from '../../lib/types';
import { PasswordField } from '../../ui/form-fields';
import { Logo } from '../../ui/icons';

/**
 * Sign in with email and password (accounts are made with the command line). The password goes to
 * `onSignedIn` too: after an operator's reset the next screen sets a new one, and needs the old.
 */
export default function SignInPage({
  onSignedIn,
}: {
  onSignedIn: (session: SessionInfo, password: string) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const ids = { email: useId(), password: useId(), remember: useId(), error: useId() };
  const emailRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Atelier';
    emailRef.current?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api.post<SessionInfo>('/web/api/session', { email, password, remember }), password);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <form
        className="panel sign-in-card stack"
        onSubmit={submit}
        aria-describedby={error ? ids.error : undefined}
      >
        <div className="brand large">
          <Logo />
          <span>Atelier</span>
        </div>
        <h1>Sign in</h1>
        <div className="field">
          <label className="field-label" htmlFor={ids.email}>
            Email
          </label>
          <input
            ref={emailRef}
            id={ids.email}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <PasswordField
          id={ids.password}
          label="Password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
        />
        <div className="row tight">
          <input
            id={ids.remember}
            type="checkbox"
            checked={remember}
            onChange={(event) => setRemember(event.target.checked)}
          />
          <label htmlFor={ids.remember}>Keep me signed in for 30 days</label>
        </div>
        {error && (
          <p className="error-text" role="alert" id={ids.error}>
            {error}
          </p>
        )}
        <button type="submit" className="button primary large" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">No account yet? Ask the person who runs this Atelier to create one.</p>
      </form>
    </main>
  );
}
