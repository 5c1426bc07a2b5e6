import { randomBytes } from 'node:crypto';
import type { Clock } from '../../base/runtime/clock.js';
import { type SecretBox, sealContext } from '../../base/secrets/secret-box.js';
import type { Db } from '../../infra/store/database.js';
import { hashApiKey } from './credentials.js';

/** How long the person has to consent, and the code to be exchanged. */
const CONSENT_TTL_MS = 10 * 60_000;
export const OAUTH_CODE_TTL_MS = 5 * 60_000;
const CODE_PREFIX = 'atl_oac_';
const DAY_MS = 24 * 60 * 60_000;
/** A registered client that has not completed a sign-in within this time is removed (docs/mcp.md). */
export const UNUSED_CLIENT_TTL_MS = DAY_MS;

/** The one scope: act as the account on /mcp. */
export const OAUTH_SCOPE = 'mcp';

/** Why a request is refused (OAuth's own error codes, RFC 6749 §5.2 and RFC 8707). */
export type OAuthRefusal = { refused: 'invalid_grant' | 'invalid_target'; message: string };

/** An authorization waiting for the person's consent, as the consent page shows it. */
export interface PendingAuthorization {
  id: string;
  clientId: string;
  clientName: string | null;
  /** The host publishing the client's metadata document (its client_id is that URL); null if registered. */
  clientHost: string | null;
  redirectUri: string;
}

/** A new secret: a prefix and 256 random bits (kept as its SHA-256 only). */
export const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

type ClientInfo = { client_name?: unknown; redirect_uris?: unknown };
/** A registered client's name, from its registration (RFC 7591 `client_name`). */
export function clientNameOf(json: string): string | null {
  const info = JSON.parse(json) as ClientInfo;
  return typeof info.client_name === 'string' && info.client_name.trim() !== '' ? info.client_name : null;
}
/** The host of a client identified by its metadata document (the client_id's host); null otherwise. */
export function documentHostOf(clientId: string, json: string): string | null {
  const info = JSON.parse(json) as { client_id_metadata_document?: unknown };
  return info.client_id_metadata_document === true && URL.canParse(clientId) ? new URL(clientId).host : null;
}
/** The host of a registered client's first redirect URI. */
export function redirectHostOf(json: string): string | null {
  const uris = (JSON.parse(json) as ClientInfo).redirect_uris;
  const first = Array.isArray(uris) ? uris[0] : undefined;
  return typeof first === 'string' && URL.canParse(first) ? new URL(first).host : null;
}

/** What the consents are built on, and the issuer derived from the resource. */
interface ConsentsContext {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  /** This server's /mcp URL: the one resource (RFC 8707) tokens are issued for. */
  resource: string;
  /** The issuer (RFC 9207 `iss` in every authorization response): the root of the /mcp URL's origin. */
  issuer: string;
}

/** A confidential client's secret is kept sealed, bound to its client id (the SDK compares it in clear). */
const secretContext = (clientId: string) => sealContext('oauth-client', clientId);

/** A resource (RFC 8707) other than this server's /mcp: refused. */
function wrongTarget(resource: string, given: string | undefined): OAuthRefusal | undefined {
  return given !== undefined && given !== resource
    ? { refused: 'invalid_target', message: `resource must be ${resource}` }
    : undefined;
}

/**
 * Registers a client (RFC 7591). Clients registered more than UNUSED_CLIENT_TTL_MS ago that never
 * completed a sign-in (no code exchanged) are removed first, with their pending authorizations:
 * anonymous registration must not fill the store.
 */
async function registerClient(
  { db, clock, secrets }: ConsentsContext,
  info: { client_id: string } & Record<string, unknown>,
): Promise<void> {
  await db
    .deleteFrom('oauth_clients')
    .where('signed_in_at', 'is', null)
    .where('created_at', '<', clock.now() - UNUSED_CLIENT_TTL_MS)
    .execute();
  const { client_secret, ...rest } = info;
  const stored =
    typeof client_secret === 'string'
      ? { ...rest, client_secret_sealed: secrets.seal(client_secret, secretContext(info.client_id)) }
      : rest;
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: info.client_id,
      client_json: JSON.stringify(stored),
      created_at: clock.now(),
      signed_in_at: null,
    })
    .execute();
}

/** A client's registration, its secret opened (when it has one); undefined when unknown. */
async function getClient(
  { db, secrets }: ConsentsContext,
  clientId: string,
): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .selectFrom('oauth_clients')
    .select('client_json')
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { client_secret_sealed, ...client } = JSON.parse(row.client_json) as Record<string, unknown>;
  return typeof client_secret_sealed === 'string'
    ? { ...client, client_secret: secrets.open(client_secret_sealed, secretContext(clientId)) }
    : client;
}

/**
 * Consents and codes are of no use once expired (a used code is kept a day, so that presenting it
 * again still revokes what it gave); grants revoked or lapsed a month ago neither. Dropped as new
 * authorizations come (a rare event), no job needed.
 */
async function dropExpired(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('oauth_authorizations')
    .where('expires_at', '<', now - DAY_MS)
    .execute();
  await db
    .deleteFrom('oauth_grants')
    .where((eb) =>
      eb.or([eb('revoked_at', '<', now - 30 * DAY_MS), eb('refresh_expires_at', '<', now - 30 * DAY_MS)]),
    )
    .execute();
}

/** Records an authorization request that passed the protocol's checks; its id names the consent. */
async function startAuthorization(
  { db, clock, resource }: ConsentsContext,
  request: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    state: string | undefined;
    resource: string | undefined;
  },
): Promise<string | OAuthRefusal> {
  const refusal = wrongTarget(resource, request.resource);
  if (refusal) return refusal;
  const now = clock.now();
  await dropExpired(db, now);
  const id = `oaz_${randomBytes(24).toString('base64url')}`;
  await db
    .insertInto('oauth_authorizations')
    .values({
      id,
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      state: request.state ?? null,
      scope: OAUTH_SCOPE,
      resource,
      created_at: now,
      expires_at: now + CONSENT_TTL_MS,
      account_id: null,
      code_hash: null,
      used_at: null,
      grant_id: null,
    })
    .execute();
  return id;
}

/** An authorization still waiting for consent; undefined when unknown, answered or expired. */
async function pendingAuthorization(
  { db, clock }: ConsentsContext,
  id: string,
): Promise<PendingAuthorization | undefined> {
  const row = await db
    .selectFrom('oauth_authorizations as a')
    .innerJoin('oauth_clients as c', 'c.client_id', 'a.client_id')
    .select(['a.id', 'a.client_id', 'a.redirect_uri', 'c.client_json'])
    .where('a.id', '=', id)
    .where('a.account_id', 'is', null)
    .where('a.expires_at', '>', clock.now())
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    clientId: row.client_id,
    clientName: clientNameOf(row.client_json),
    clientHost: documentHostOf(row.client_id, row.client_json),
    redirectUri: row.redirect_uri,
  };
}

/**
 * The person's answer: allow issues a one-time code bound to the account; deny ends the
 * authorization. Either way, where to send the browser (the client's redirect URI with the
 * code or `error=access_denied`, and the state); undefined when it was no longer pending.
 */
async function decide(
  { db, clock, issuer }: ConsentsContext,
  id: string,
  accountId: string,
  allow: boolean,
): Promise<string | undefined> {
  const now = clock.now();
  const row = await db
    .selectFrom('oauth_authorizations')
    .select(['client_id', 'redirect_uri', 'state'])
    .where('id', '=', id)
    .where('account_id', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const target = new URL(row.redirect_uri);
  // The person saw where the answer goes: from now on /authorize may send errors there too.
  await db
    .insertInto('oauth_seen_redirects')
    .values({ client_id: row.client_id, redirect_uri: row.redirect_uri, seen_at: now })
    .onConflict((oc) => oc.columns(['client_id', 'redirect_uri']).doNothing())
    .execute();
  if (allow) {
    const code = newSecret(CODE_PREFIX);
    const taken = await db
      .updateTable('oauth_authorizations')
      .set({ account_id: accountId, code_hash: hashApiKey(code), expires_at: now + OAUTH_CODE_TTL_MS })
      .where('id', '=', id)
      .where('account_id', 'is', null)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) return undefined;
    target.searchParams.set('code', code);
  } else {
    const ended = await db
      .deleteFrom('oauth_authorizations')
      .where('id', '=', id)
      .where('account_id', 'is', null)
      .executeTakeFirst();
    if (Number(ended.numDeletedRows) !== 1) return undefined;
    target.searchParams.set('error', 'access_denied');
    target.searchParams.set('error_description', 'The person declined');
  }
  if (row.state !== null) target.searchParams.set('state', row.state);
  target.searchParams.set('iss', issuer);
  return target.href;
}

/**
 * OAuth clients and consents: registration (RFC 7591), the authorizations a person is asked about,
 * their answer (a one-time code bound to the account, or a denial), and the code's PKCE challenge.
 * A plain object of calls: the grants spread it, and the edge wraps each call.
 */
export function createOAuthConsents(deps: { db: Db; clock: Clock; secrets: SecretBox; resource: string }) {
  const { db, clock, resource } = deps;
  const context: ConsentsContext = { ...deps, issuer: new URL('/', resource).href };

  return {
    wrongTarget: (given: string | undefined) => wrongTarget(resource, given),
    issuer: context.issuer,
    registerClient: (info: { client_id: string } & Record<string, unknown>) => registerClient(context, info),

    /**
     * A client read from its metadata document (src/edges/oauth/client-metadata-documents.ts), kept as a
     * row (written again from each fresh read) so its authorizations and grants can name it.
     */
    async saveDocumentClient(info: { client_id: string } & Record<string, unknown>): Promise<void> {
      const client_json = JSON.stringify(info);
      await db
        .insertInto('oauth_clients')
        .values({ client_id: info.client_id, client_json, created_at: clock.now(), signed_in_at: null })
        .onConflict((oc) => oc.column('client_id').doUpdateSet({ client_json }))
        .execute();
    },

    getClient: (clientId: string) => getClient(context, clientId),
    startAuthorization: (request: Parameters<typeof startAuthorization>[1]) =>
      startAuthorization(context, request),
    pendingAuthorization: (id: string) => pendingAuthorization(context, id),
    decide: (id: string, accountId: string, allow: boolean) => decide(context, id, accountId, allow),

    /** Whether a person has seen this redirect URI of this client on the consent screen. */
    async hasSeenRedirect(clientId: string, redirectUri: string): Promise<boolean> {
      const row = await db
        .selectFrom('oauth_seen_redirects')
        .select('seen_at')
        .where('client_id', '=', clientId)
        .where('redirect_uri', '=', redirectUri)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The PKCE challenge a code was issued under (the SDK verifies the verifier against it). */
    async challengeFor(clientId: string, code: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('oauth_authorizations')
        .select('code_challenge')
        .where('code_hash', '=', hashApiKey(code))
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return row?.code_challenge;
    },
  };
}
