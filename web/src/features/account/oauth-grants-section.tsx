import type { OAuthGrantInfo } from '../../../../src/base/contract/oauth';
import { formatDate, formatWhen } from '../../lib/format';
import { ConfirmDialog } from '../../ui/dialog';
import { useRevocableList } from './revocable-list';

const appName = (grant: OAuthGrantInfo) => grant.client_name ?? grant.redirect_host ?? grant.client_id;

/** Why Atelier ended a sign-in by itself, in the person's words. */
const ENDED_BECAUSE: Record<NonNullable<OAuthGrantInfo['ended_reason']>, string> = {
  refresh_token_reused:
    'Ended by Atelier: a refresh token this app had already replaced was presented again, so it may have been copied. The app must ask you again.',
  code_reused:
    'Ended by Atelier: its sign-in code was presented a second time, so it may have been copied. The app must ask you again.',
};

/**
 * The apps signed in with the account (hosted MCP clients it allowed on the consent page), listed
 * beside the API keys: name, where it redirects, when allowed, last use; each revocable after a
 * confirmation (its tokens stop working at once, on every node). A sign-in Atelier ended by itself
 * (a refresh token or code presented twice) stays listed with the reason. Nothing is shown when none is.
 */
export function OAuthGrantsSection() {
  const {
    items: grants,
    listing,
    revoking,
    askToRevoke,
    confirming,
  } = useRevocableList<OAuthGrantInfo>('/web/api/account/oauth-grants', 'grants');

  if (listing.error)
    return (
      <p className="error-text" role="alert">
        {listing.error}
      </p>
    );
  if (!grants || grants.length === 0) return null;
  return (
    <div className="table-scroll">
      <table className="deliveries api-keys">
        <caption className="field-label">Apps signed in with your account</caption>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Redirects to</th>
            <th scope="col">Allowed</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {grants.map((grant) => (
            <tr key={grant.id}>
              <th scope="row">{appName(grant)}</th>
              <td className="mono small">{grant.redirect_host ?? '—'}</td>
              <td className="small">{formatDate(grant.created_at)}</td>
              <td className="small">
                {grant.last_used_at === null ? 'Never' : formatWhen(grant.last_used_at)}
              </td>
              <td>
                {grant.ended_reason ? (
                  <p className="error-text small">
                    {ENDED_BECAUSE[grant.ended_reason]}{' '}
                    {grant.ended_at !== null && <span>({formatWhen(grant.ended_at)})</span>}
                  </p>
                ) : (
                  <button
                    type="button"
                    className="button small"
                    aria-label={`Revoke ${appName(grant)}`}
                    onClick={() => askToRevoke(grant)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoking && (
        <ConfirmDialog
          title={`Sign “${appName(revoking)}” out?`}
          message={
            <p>
              Its access stops at once, on every node: its next call to /mcp gets 401 and it must ask you
              again. This cannot be undone.
            </p>
          }
          confirmLabel="Revoke access"
          {...confirming(revoking)}
        />
      )}
    </div>
  );
}
