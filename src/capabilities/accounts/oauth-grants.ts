import { randomBytes } from 'node:crypto';
import type { Clock } from '../../base/runtime/clock.js';
import type { SecretBox } from '../../base/secrets/secret-box.js';
import type { Db } from '../../infra/store/database.js';
import type { OAuthGrantsTable } from '../../infra/store/schema/oauth.js';
import type { Account } from './accounts-repository.js';
import { hashApiKey } from './credentials.js';
import {
  type GrantEndReason,
  listAccountGrants,
  type OAuthGrant,
  revokeAccountGrant,
} from './oauth-account-grants.js';
import { createOAuthConsents, newSecret, OAUTH_SCOPE, type OAuthRefusal } from './oauth-consents.js';
import { createOAuthRateWindows } from './oauth-rate-windows.js';

export { type GrantEndReason, OAUTH_SCOPE, type OAuthGrant, type OAuthRefusal };

/** How an OAuth access token begins: never an API key's `atl_…` followed by a key's hash. */
export const OAUTH_ACCESS_PREFIX = 'atl_oat_';
const REFRESH_PREFIX = 'atl_ort_';

export const OAUTH_ACCESS_TTL_MS = 60 * 60_000;
export const OAUTH_REFRESH_TTL_MS = 30 * 24 * 60 * 60_000;
const REUSED =
  'This refresh token was already used and replaced; the sign-in it belonged to is now ended (it may have been copied). Sign in again.';
/** A grant's last use is written at most this often. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface OAuthTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What an access token opens: the account, on this server's /mcp only. */
export interface VerifiedAccess {
  account: Account;
  grantId: string;
  clientId: string;
  scopes: string[];
  /** Epoch seconds. */
  expiresAt: number;
  resource: string;
}

/** What the grants are built on. */
export interface OAuthGrantsDeps {
  db: Db;
  clock: Clock;
  /** Seals a confidential client's secret in its row. */
  secrets: SecretBox;
  /** The one resource (RFC 8707) tokens are issued for: this server's /mcp URL. */
  resource: string;
  /** The account if it may sign in (undefined when unknown or disabled). */
  standing: (accountId: string) => Promise<Account | undefined>;
}

/** The grants' parts, with this node's memory of when each grant's last use was written. */
interface GrantsContext extends OAuthGrantsDeps {
  lastUseWrites: Map<string, number>;
  wrongTarget: (given: string | undefined) => OAuthRefusal | undefined;
}

type CodeExchange = {
  clientId: string;
  code: string;
  redirectUri: string | undefined;
  resource: string | undefined;
};

/** Fresh access and refresh tokens: the answer, and the columns that keep their hashes. */
function newTokens(clock: Clock) {
  const now = clock.now();
  const accessToken = newSecret(OAUTH_ACCESS_PREFIX);
  const refreshToken = newSecret(REFRESH_PREFIX);
  const tokens: OAuthTokens = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: OAUTH_ACCESS_TTL_MS / 1000,
    refresh_token: refreshToken,
    scope: OAUTH_SCOPE,
  };
  const columns = {
    access_hash: hashApiKey(accessToken),
    access_expires_at: now + OAUTH_ACCESS_TTL_MS,
    refresh_hash: hashApiKey(refreshToken),
    refresh_expires_at: now + OAUTH_REFRESH_TTL_MS,
  } satisfies Partial<OAuthGrantsTable>;
  return { tokens, columns };
}

/** Ends a grant still working (both its tokens), saying why. */
async function endGrant(
  { db, clock }: GrantsContext,
  grantId: string,
  reason: GrantEndReason,
): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: clock.now(), ended_reason: reason })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** A rotated-out refresh token of this client presented again: ends its grant; false if unknown. */
async function endGrantOfRetired(
  context: GrantsContext,
  refreshHash: string,
  clientId: string,
): Promise<boolean> {
  const retired = await context.db
    .selectFrom('oauth_retired_refresh_tokens as r')
    .innerJoin('oauth_grants as g', 'g.id', 'r.grant_id')
    .select('g.id')
    .where('r.refresh_hash', '=', refreshHash)
    .where('g.client_id', '=', clientId)
    .where('g.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!retired) return false;
  await endGrant(context, retired.id, 'refresh_token_reused');
  return true;
}

/**
 * Exchanges a code (once; its challenge already verified) for tokens. A code presented again
 * revokes the grant it was exchanged for (OAuth 2.1 §4.1.3: it may have been stolen).
 */
async function exchangeCode(
  context: GrantsContext,
  input: CodeExchange,
): Promise<OAuthTokens | OAuthRefusal> {
  const { db, clock, standing } = context;
  const refusal = context.wrongTarget(input.resource);
  if (refusal) return refusal;
  const now = clock.now();
  const codeHash = hashApiKey(input.code);
  const row = await db
    .selectFrom('oauth_authorizations')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .where('client_id', '=', input.clientId)
    .executeTakeFirst();
  const invalid = (message: string): OAuthRefusal => ({ refused: 'invalid_grant', message });
  if (!row || row.account_id === null) return invalid('Unknown authorization code');
  if (row.used_at !== null) {
    if (row.grant_id !== null) {
      await endGrant(context, row.grant_id, 'code_reused');
    }
    return invalid('The authorization code was already used');
  }
  if (Number(row.expires_at) <= now) return invalid('The authorization code has expired');
  if (input.redirectUri !== undefined && input.redirectUri !== row.redirect_uri) {
    return invalid('redirect_uri differs from the authorization request');
  }
  if (!(await standing(row.account_id))) return invalid('The account is disabled');
  const grant = { accountId: row.account_id, scope: row.scope, resource: row.resource };
  return issueGrant(context, input.clientId, codeHash, grant, now);
}

/** The code claimed and a grant made for it, in one transaction: its tokens, or a refusal (claimed first). */
function issueGrant(
  { db, clock }: GrantsContext,
  clientId: string,
  codeHash: string,
  grant: { accountId: string; scope: string; resource: string },
  now: number,
): Promise<OAuthTokens | OAuthRefusal> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('oauth_authorizations')
      .set({ used_at: now })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1)
      return { refused: 'invalid_grant' as const, message: 'The authorization code was already used' };
    const grantId = `oag_${randomBytes(16).toString('base64url')}`;
    const { tokens, columns } = newTokens(clock);
    await trx
      .insertInto('oauth_grants')
      .values({
        id: grantId,
        ...columns,
        account_id: grant.accountId,
        client_id: clientId,
        scope: grant.scope,
        resource: grant.resource,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
        ended_reason: null,
      })
      .execute();
    await trx
      .updateTable('oauth_clients')
      .set({ signed_in_at: now })
      .where('client_id', '=', clientId)
      .where('signed_in_at', 'is', null)
      .execute();
    await trx
      .updateTable('oauth_authorizations')
      .set({ grant_id: grantId })
      .where('code_hash', '=', codeHash)
      .execute();
    return tokens;
  });
}

/**
 * A refresh token for new tokens; both are replaced, and the old refresh token is remembered.
 * Presented again, a rotated-out refresh token ends the whole grant (OAuth 2.1 §4.3.1, RFC 9700
 * §4.14.2: our clients are public, so a second presenter may be a thief), on every node at once.
 */
async function refresh(
  context: GrantsContext,
  input: { clientId: string; refreshToken: string; resource: string | undefined },
): Promise<OAuthTokens | OAuthRefusal> {
  const { db, clock, standing } = context;
  const refusal = context.wrongTarget(input.resource);
  if (refusal) return refusal;
  const now = clock.now();
  const refreshHash = hashApiKey(input.refreshToken);
  const invalid: OAuthRefusal = {
    refused: 'invalid_grant',
    message: 'Unknown, expired or revoked refresh token',
  };
  const grant = await db
    .selectFrom('oauth_grants')
    .select(['id', 'account_id'])
    .where('refresh_hash', '=', refreshHash)
    .where('client_id', '=', input.clientId)
    .where('revoked_at', 'is', null)
    .where('refresh_expires_at', '>', now)
    .executeTakeFirst();
  if (!grant) {
    const reused = await endGrantOfRetired(context, refreshHash, input.clientId);
    return reused ? { refused: 'invalid_grant', message: REUSED } : invalid;
  }
  if (!(await standing(grant.account_id))) return invalid;
  const { tokens, columns } = newTokens(clock);
  const rotated = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('oauth_grants')
      .set(columns)
      .where('id', '=', grant.id)
      .where('refresh_hash', '=', refreshHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx
      .insertInto('oauth_retired_refresh_tokens')
      .values({ refresh_hash: refreshHash, grant_id: grant.id, retired_at: now })
      .execute();
    return true;
  });
  if (rotated) return tokens;
  // Another request rotated it first: this one is a reuse too.
  return (await endGrantOfRetired(context, refreshHash, input.clientId))
    ? { refused: 'invalid_grant', message: REUSED }
    : invalid;
}

/**
 * The account an access token acts as: undefined for an unknown, expired or revoked token, a
 * disabled account, or a token issued for another resource.
 */
async function verifyAccess(
  { db, clock, resource, standing, lastUseWrites }: GrantsContext,
  accessToken: string,
): Promise<VerifiedAccess | undefined> {
  const now = clock.now();
  const grant = await db
    .selectFrom('oauth_grants')
    .select(['id', 'account_id', 'client_id', 'scope', 'resource', 'access_expires_at'])
    .where('access_hash', '=', hashApiKey(accessToken))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!grant || Number(grant.access_expires_at) <= now || grant.resource !== resource) return undefined;
  const account = await standing(grant.account_id);
  if (!account) return undefined;
  const written = lastUseWrites.get(grant.id);
  if (written === undefined || now - written >= LAST_USED_WRITE_INTERVAL_MS) {
    lastUseWrites.set(grant.id, now);
    if (lastUseWrites.size > 10_000) lastUseWrites.clear();
    // Best effort, off the request's path.
    db.updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', grant.id)
      .execute()
      .catch(() => lastUseWrites.delete(grant.id));
  }
  return {
    account,
    grantId: grant.id,
    clientId: grant.client_id,
    scopes: grant.scope.split(' ').filter(Boolean),
    expiresAt: Math.floor(Number(grant.access_expires_at) / 1000),
    resource: grant.resource,
  };
}

/**
 * OAuth clients, consents, codes and grants for sign-in of hosted MCP clients (issue 32). Every
 * token and code is 256 random bits, kept as its SHA-256 (like API keys); an access token is
 * looked up in the store on every use (no cache), so a revocation or a disabled account refuses it
 * on every node at once. The protocol itself (parameters, PKCE verification, client
 * authentication, errors) is the MCP SDK's, at the edge (src/edges/oauth). A plain object of calls:
 * the edge wraps each one.
 */
export function createOAuthGrants(deps: OAuthGrantsDeps) {
  const { db, clock, secrets, resource } = deps;
  const consents = createOAuthConsents({ db, clock, secrets, resource });
  const context: GrantsContext = { ...deps, lastUseWrites: new Map(), wrongTarget: consents.wrongTarget };

  return {
    resource,
    ...consents,
    /** The OAuth endpoints' rate-limit counters, shared by every node. */
    rateWindows: createOAuthRateWindows({ db, clock }),
    exchangeCode: (input: CodeExchange) => exchangeCode(context, input),
    refresh: (input: { clientId: string; refreshToken: string; resource: string | undefined }) =>
      refresh(context, input),
    verifyAccess: (accessToken: string) => verifyAccess(context, accessToken),

    /** RFC 7009: the client's access or refresh token ends its whole grant; unknown tokens are ignored. */
    async revokeToken(clientId: string, token: string): Promise<void> {
      const tokenHash = hashApiKey(token);
      await db
        .updateTable('oauth_grants')
        .set({ revoked_at: clock.now() })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('access_hash', '=', tokenHash), eb('refresh_hash', '=', tokenHash)]))
        .execute();
    },

    /** The account's grants for its page (oauth-account-grants.ts). */
    listForAccount: (accountId: string) => listAccountGrants(db, clock, accountId),
    /** Revokes one of the account's grants; false when it has no such working grant. */
    revokeForAccount: (accountId: string, grantId: string) =>
      revokeAccountGrant(db, clock, accountId, grantId),
  };
}

export type OAuthGrants = ReturnType<typeof createOAuthGrants>;
