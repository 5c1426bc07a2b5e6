import { useEffect, useState } from 'react';
import type { OAuthAuthorizationInfo } from '../../../../src/base/contract/oauth';
import { api, messageOf } from '../../lib/api';
import { useLocation } from '../../lib/router';

/**
 * The consent screen of sign-in for hosted MCP clients (issue 32): the authorization endpoint sends
 * the browser here (through sign-in when signed out); it names the app (its registered name and
 * where the answer goes) and the account, and sends the person's answer. Either answer goes back to
 * the app: with a one-time code, or with error=access_denied.
 */
export default function ConsentPage() {
  const { search } = useLocation();
  const id = search.get('request') ?? '';
  const [request, setRequest] = useState<OAuthAuthorizationInfo>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<'allow' | 'deny'>();
  const path = `/web/api/oauth/authorizations/${encodeURIComponent(id)}`;

  useEffect(() => {
    if (id === '') {
      setError('This page needs a sign-in request; start again from the app.');
      return;
    }
    api.get<OAuthAuthorizationInfo>(path).then(setRequest, (failure) => setError(messageOf(failure)));
  }, [id, path]);

  const answer = async (allow: boolean) => {
    setBusy(allow ? 'allow' : 'deny');
    setError(undefined);
    try {
      const { redirect_to } = await api.post<{ redirect_to: string }>(path, { allow });
      window.location.assign(redirect_to);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(undefined);
    }
  };

  const app = request?.client_name ?? 'An app';
  return (
    <div className="page consent">
      <h1 className="page-title">{request ? `Allow ${app} to use Atelier?` : 'Allow access'}</h1>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {request && (
        <section className="panel stack" aria-label="Sign-in request">
          <p>
            <strong>{app}</strong> asks to act as <strong>{request.account_email}</strong> on this Atelier’s
            MCP endpoint: generate images (spending your allowance), and read your tasks, history and uploads.
          </p>
          {request.client_host && (
            <p>
              This app is described by <code>{request.client_host}</code>, which publishes its name and
              addresses.
            </p>
          )}
          <p>
            Your answer goes back to <code>{request.redirect_host}</code>. Only allow apps you trust and
            expected to see here. You can revoke its access at any time on the Account page.
          </p>
          <div className="row">
            <button
              type="button"
              className="button primary"
              disabled={busy !== undefined}
              onClick={() => void answer(true)}
            >
              {busy === 'allow' ? 'Allowing…' : 'Allow'}
            </button>
            <button
              type="button"
              className="button"
              disabled={busy !== undefined}
              onClick={() => void answer(false)}
            >
              {busy === 'deny' ? 'Declining…' : 'Deny'}
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
