import { useEffect } from 'react';
import { AUTHORIZE_PROBLEM_META, type AuthorizeProblemInfo } from '../../../../src/base/contract/oauth';
import { Logo } from '../../ui/icons';

/** The problem the server wrote into this page (a meta element), if any. */
function problemOfPage(): AuthorizeProblemInfo | undefined {
  const content = document.querySelector(`meta[name="${AUTHORIZE_PROBLEM_META}"]`)?.getAttribute('content');
  if (!content) return undefined;
  try {
    return JSON.parse(content) as AuthorizeProblemInfo;
  } catch {
    return undefined;
  }
}

/**
 * An app's sign-in request (/authorize) that cannot go on, stated before any redirect: Atelier never
 * sends the browser to an address no person has seen on the consent screen, so it says here what is
 * wrong and where it did not go. Shown signed in or not.
 */
export default function AuthorizeProblemPage() {
  const found = problemOfPage();
  useEffect(() => {
    document.title = 'Sign-in request refused · Atelier';
  }, []);
  return (
    <main className="sign-in" id="main">
      <section className="panel sign-in-card stack" aria-labelledby="authorize-problem-title">
        <div className="brand large">
          <Logo />
          <span>Atelier</span>
        </div>
        <h1 id="authorize-problem-title">This sign-in request cannot go on</h1>
        <p className="error-text" role="alert">
          {found?.problem ??
            'This address is where apps send people to sign in; it was opened without a request.'}
        </p>
        {found?.destination ? (
          <>
            <p>Atelier did not send you on to the app, and nothing was shared with it.</p>
            <dl className="params">
              <dt>Not sent to</dt>
              <dd>
                <code>{found.destination}</code>
              </dd>
            </dl>
          </>
        ) : (
          <p>Atelier did not send you anywhere, and nothing was shared with the app.</p>
        )}
        <p className="muted small">
          Go back to the app and start signing in again; if this comes back, tell its makers.
        </p>
      </section>
    </main>
  );
}
