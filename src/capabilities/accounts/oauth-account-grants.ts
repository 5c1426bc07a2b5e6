/**
 * The account page's view of its OAuth grants (apps signed in with it): the list, with why the server
 * ended a grant, and the person's own revocation. Issuing and checking tokens is in oauth-grants.ts.
 */
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import { clientNameOf, redirectHostOf } from './oauth-consents.js';

/** Why the server ended a grant: one of its single-use credentials was presented a second time. */
export type GrantEndReason = 'refresh_token_reused' | 'code_reused';

/** A grant as the account page lists it (never a token). */
export interface OAuthGrant {
  id: string;
  clientId: string;
  clientName: string | null;
  redirectHost: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number;
  /** When and why the server ended it (listed for 30 days after); null while it works. */
  ended: { at: number; reason: GrantEndReason } | null;
}

/**
 * The account's working grants (apps signed in with it), oldest first, and those the server
 * ended because a credential was presented twice (kept until dropped, 30 days), so the person
 * learns why an app must sign in again.
 */
export async function listAccountGrants(db: Db, clock: Clock, accountId: string): Promise<OAuthGrant[]> {
  const rows = await db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .select([
      'g.id',
      'g.client_id',
      'g.created_at',
      'g.last_used_at',
      'g.refresh_expires_at',
      'g.revoked_at',
      'g.ended_reason',
      'c.client_json',
    ])
    .where('g.account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb.and([eb('g.revoked_at', 'is', null), eb('g.refresh_expires_at', '>', clock.now())]),
        eb('g.ended_reason', 'is not', null),
      ]),
    )
    .orderBy('g.created_at')
    .orderBy('g.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    clientId: row.client_id,
    clientName: clientNameOf(row.client_json),
    redirectHost: redirectHostOf(row.client_json),
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    expiresAt: Number(row.refresh_expires_at),
    ended:
      row.ended_reason === null
        ? null
        : { at: Number(row.revoked_at), reason: row.ended_reason as GrantEndReason },
  }));
}

/** Revokes one of the account's grants (both its tokens); false when it has no such working grant. */
export async function revokeAccountGrant(
  db: Db,
  clock: Clock,
  accountId: string,
  grantId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: clock.now() })
    .where('id', '=', grantId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
