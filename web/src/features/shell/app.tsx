import { lazy, Suspense, useEffect, useState } from 'react';
import { api, onSignedOut } from '../../lib/api';
import { draftStore } from '../../lib/draft';
import { Link, navigate, useLocation } from '../../lib/router';
import { tasksStore } from '../../lib/tasks';
import type { SessionInfo, SessionState } from '../../lib/types';
import { askEarly } from '../../lib/work-link';
import { Logo } from '../../ui/icons';
import { PageErrorBoundary } from '../../ui/page-error-boundary';
import ChoosePasswordPage from '../account/choose-password-page';
import SignInPage from '../account/sign-in-page';
import CreatePage from '../create/create-page';

// Create is the landing view and ships in the main bundle; the other pages load when first visited.
const loadWorksPage = () => import('../works/works-page');
const WorksPage = lazy(loadWorksPage);
askEarly(window.location, loadWorksPage);
const LibraryPage = lazy(() => import('../library/library-page'));
const AccountPage = lazy(() => import('../account/account-page'));
// Sign-in for hosted MCP clients: the consent screen the authorization endpoint sends people to.
const ConsentPage = lazy(() => import('../account/consent-page'));
const CONSENT_PATH = '/oauth/consent';
// A sign-in request that cannot go on: answered by /authorize itself, for anyone, signed in or not.
const AuthorizeProblemPage = lazy(() => import('../account/authorize-problem-page'));
const AUTHORIZE_PATH = '/authorize';
// The operator console: its own chunk, loaded only by operators.
const AdminArea = lazy(() => import('../admin/admin'));

const PAGES = [
  { path: '/', label: 'Create', title: 'Create' },
  { path: '/works', label: 'Saved works', title: 'Saved works' },
  { path: '/library', label: 'Library', title: 'Library' },
  { path: '/account', label: 'Account', title: 'Account' },
];

/** Shown in the navigation to operators only (the admin API refuses anyone else). */
const ADMIN_PAGE = { path: '/admin', label: 'Admin', title: 'Admin' };
const isAdminPath = (path: string) => path === '/admin' || path.startsWith('/admin/');

function Page({ path }: { path: string }) {
  if (isAdminPath(path)) return <AdminArea path={path} />;
  switch (path) {
    case '/':
    case '/create':
      return <CreatePage />;
    case '/works':
      return <WorksPage />;
    case '/library':
      return <LibraryPage />;
    case '/account':
      return <AccountPage />;
    case CONSENT_PATH:
      return <ConsentPage />;
    default:
      return (
        <div className="page">
          <h1 className="page-title">Page not found</h1>
          <p>
            There is no page at <code>{path}</code>. <Link href="/">Go to Create</Link>.
          </p>
        </div>
      );
  }
}

/** The shell: session check, header and navigation, and the current page. */
export function App() {
  const { path, search } = useLocation();
  const { session, setSession, signInPassword, setSignInPassword, signingOut, signOut } = useSession();
  useSignInRedirects(session, path, search);
  const pages = session?.operator ? [...PAGES, ADMIN_PAGE] : PAGES;
  const current = isAdminPath(path)
    ? ADMIN_PAGE
    : pages.find((p) => p.path === path || (p.path === '/' && path === '/create'));
  useEffect(() => {
    if (!session || session.passwordChangeRequired) return;
    if (current) document.title = `${current.title} · Atelier`;
    else document.title = path === CONSENT_PATH ? 'Allow access · Atelier' : 'Atelier';
  }, [session, current, path]);

  if (path === AUTHORIZE_PATH) {
    return (
      <Suspense fallback={null}>
        <AuthorizeProblemPage />
      </Suspense>
    );
  }
  if (session === undefined) {
    return (
      <div className="boot" aria-busy="true">
        <Logo />
      </div>
    );
  }
  if (session === null) {
    return (
      <SignInPage
        onSignedIn={(info, password) => {
          setSignInPassword(info.passwordChangeRequired ? password : undefined);
          setSession(info);
        }}
      />
    );
  }
  // After an operator's reset the session can do nothing else (every other call answers 403).
  if (session.passwordChangeRequired) {
    return (
      <ChoosePasswordPage
        email={session.email}
        signInPassword={signInPassword}
        onChanged={() => {
          setSignInPassword(undefined);
          setSession({ ...session, passwordChangeRequired: false });
        }}
        onSignOut={() => void signOut()}
      />
    );
  }
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <SiteHeader
        pages={pages}
        current={current}
        email={session.email}
        signingOut={signingOut}
        onSignOut={signOut}
      />
      <main id="main" tabIndex={-1}>
        <PageErrorBoundary key={path}>
          <Suspense fallback={<p className="page muted">Loading…</p>}>
            <Page path={path} />
          </Suspense>
        </PageErrorBoundary>
      </main>
    </>
  );
}

/** The session: read once, dropped on a 401 anywhere; signing out clears this tab's cards and draft. */
function useSession() {
  const [session, setSession] = useState<SessionInfo | null>();
  const [signingOut, setSigningOut] = useState(false);
  // The password this tab just signed in with, kept only while it must be replaced (an operator's reset).
  const [signInPassword, setSignInPassword] = useState<string>();

  useEffect(() => {
    // Signed out is an answer (`signedIn: false`), not a failing request: no console error.
    api.get<SessionState>('/web/api/session').then(
      (state) =>
        setSession(
          state.signedIn
            ? {
                email: state.email,
                tier: state.tier,
                operator: state.operator,
                passwordChangeRequired: state.passwordChangeRequired,
              }
            : null,
        ),
      () => setSession(null),
    );
    return onSignedOut(() => setSession(null));
  }, []);

  // Another account may sign in next in this tab: never paint the previous one's cards.
  useEffect(() => {
    if (session === null) tasksStore.set({ cards: [], dismissed: [] });
  }, [session]);

  const signOut = async () => {
    setSigningOut(true);
    try {
      await api.delete('/web/api/session');
    } catch {
      // The cookie may already be gone; signing out locally is what matters to the person.
    }
    tasksStore.set({ cards: [], dismissed: [] });
    draftStore.set((draft) => ({ ...draft, prompt: '', references: [] }));
    setSigningOut(false);
    setSignInPassword(undefined);
    setSession(null);
  };
  return { session, setSession, signInPassword, setSignInPassword, signingOut, signOut };
}

/** Signed out → the sign-in page, remembering where the person was going; signed in → back there. */
function useSignInRedirects(session: SessionInfo | null | undefined, path: string, search: URLSearchParams) {
  useEffect(() => {
    if (session === null && path !== '/sign-in' && path !== AUTHORIZE_PATH) {
      // The query too: the consent screen's request id must survive signing in.
      const query = search.toString();
      const next = query === '' ? path : `${path}?${query}`;
      navigate(`/sign-in${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`, { replace: true });
    }
    if (session && path === '/sign-in') {
      const next = search.get('next');
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
    }
  }, [session, path, search]);
}

/** The header: the brand, the main navigation, the account's email and Sign out. */
function SiteHeader({
  pages,
  current,
  email,
  signingOut,
  onSignOut,
}: {
  pages: readonly { path: string; label: string }[];
  current: { path: string } | undefined;
  email: string;
  signingOut: boolean;
  onSignOut: () => void;
}) {
  return (
    <header className="site-header">
      <div className="header-inner">
        <Link href="/" className="brand" aria-label="Atelier — Create">
          <Logo />
          <span>Atelier</span>
        </Link>
        <nav aria-label="Main" className="main-nav">
          <ul>
            {pages.map((page) => (
              <li key={page.path}>
                <Link href={page.path} aria-current={current?.path === page.path ? 'page' : undefined}>
                  {page.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account-menu">
          <span className="muted small account-email" title={email}>
            {email}
          </span>
          <button type="button" className="button small ghost" onClick={onSignOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
