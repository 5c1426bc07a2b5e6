/** The tables of sign-in for hosted MCP clients (src/capabilities/accounts/oauth-*.ts; migrations 0035, 0038, 0039). */

/** An OAuth client registered by dynamic client registration (RFC 7591). */
export interface OAuthClientsTable {
  client_id: string;
  /** The registered client information as the registration answered it (JSON). */
  client_json: string;
  created_at: number;
  /** The first code exchanged (migration 0038); clients that never get one are removed after a time. */
  signed_in_at: number | null;
}

/** An authorization a person is asked to consent to; once allowed, its one-time code. */
export interface OAuthAuthorizationsTable {
  /** Random, names the consent page's request. */
  id: string;
  client_id: string;
  redirect_uri: string;
  /** The PKCE challenge (S256). */
  code_challenge: string;
  state: string | null;
  scope: string;
  /** The resource (RFC 8707) the tokens will be bound to: this server's /mcp. */
  resource: string;
  created_at: number;
  /** The consent's deadline, then (once allowed) the code's. */
  expires_at: number;
  account_id: string | null;
  /** SHA-256 of the one-time code, set when the person allows. */
  code_hash: string | null;
  used_at: number | null;
  /** The grant the code was exchanged for (revoked if the code is presented again). */
  grant_id: string | null;
}

/** An account's grant to an OAuth client: the current access and refresh tokens (hashes only). */
export interface OAuthGrantsTable {
  /** `oag_…`. */
  id: string;
  account_id: string;
  client_id: string;
  scope: string;
  resource: string;
  access_hash: string;
  access_expires_at: number;
  refresh_hash: string;
  refresh_expires_at: number;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Why the server ended the grant (a refresh token or code presented twice); null otherwise. */
  ended_reason: string | null;
}

/** A refresh token rotated out (its SHA-256): presented again, it ends its grant (migration 0038). */
export interface OAuthRetiredRefreshTokensTable {
  refresh_hash: string;
  grant_id: string;
  retired_at: number;
}

/** A redirect URI a person saw on the consent screen for a client (migration 0039). */
export interface OAuthSeenRedirectsTable {
  client_id: string;
  redirect_uri: string;
  seen_at: number;
}

/** One fixed window of an OAuth endpoint's rate limit for one client address, shared by the nodes. */
export interface OAuthRateWindowsTable {
  key: string;
  window_start: number;
  hits: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_authorizations: OAuthAuthorizationsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_retired_refresh_tokens: OAuthRetiredRefreshTokensTable;
  oauth_rate_windows: OAuthRateWindowsTable;
  oauth_seen_redirects: OAuthSeenRedirectsTable;
}
