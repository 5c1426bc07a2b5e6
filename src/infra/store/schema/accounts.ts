import type { Generated } from 'kysely';
import type { Tier } from '../../../base/domain/tiers.js';

/** The tables of accounts (src/capabilities/accounts): the accounts, their API keys and upstream keys, and the website's sessions and sign-in throttle (src/edges/website). */

export interface AccountsTable {
  id: string;
  email: string;
  tier: Tier;
  password_hash: string | null;
  /**
   * Before migration 0028 the account's one API key; since then unused, holding `moved:<id>` (keys
   * live in `api_keys`). Kept because SQLite cannot drop a unique column in place.
   */
  api_key_hash: string;
  /** Before migration 0028 the hint of the account's one key; unused since (see `api_keys.hint`). */
  api_key_hint: string;
  created_at: number;
  updated_at: number;
  /** When the account was disabled (its key and sessions refused); null while enabled. */
  disabled_at: number | null;
  /** Moves when every session of the account must end (password change, disabling). */
  session_generation: Generated<number>;
  /** 1 for an operator (may use the operator console; set by the CLI). Migration 0028. */
  operator: Generated<number>;
  /** 1 while the password is one an operator set, until the person sets their own (migration 0036). */
  password_change_required: Generated<number>;
  /** Days the account's results and uploads are kept (migration 0075); null: the tier's or deployment's. */
  retention_results_days?: number | null;
  retention_uploads_days?: number | null;
  /** When the account's erasure began (migration 0078): the housekeeping finishes it; null otherwise. */
  erasing_at?: number | null;
}

/** An API key's scope: `full`, or `read` (polls, history, status, usage: for dashboards). */
export type ApiKeyScope = 'full' | 'read';

/** An account's API keys (migration 0028): any number, each named, scoped, optionally expiring. */
export interface ApiKeysTable {
  /** `key_…`: stable, what per-key figures (budgets, spend) refer to. */
  id: string;
  account_id: string;
  name: string;
  scope: ApiKeyScope;
  /** SHA-256 of the key (hex); the key itself is shown once and never kept. */
  key_hash: string;
  /** The first characters (`atl_abcd…`); keys moved from accounts keep their old hint (`atl_…wxyz`). */
  hint: string;
  created_at: number;
  /** When the key stops working; null for never. */
  expires_at: number | null;
  /** Last authenticated use, written at most once a minute per key and node. */
  last_used_at: number | null;
  /** When the key was revoked; null while it works. */
  revoked_at: number | null;
  /** Days the key's results are kept (migration 0076); null or absent: the account's, tier's or deployment's. */
  retention_results_days?: number | null;
  /** 1: the key stores nothing, every work made with it is zero-retention (migration 0076). */
  zero_retention?: number;
}

export interface UpstreamKeysTable {
  account_id: string;
  provider: string;
  ciphertext: string;
  created_at: number;
}

/** A website session: the cookie holds a random token, this table its SHA-256 (hex). */
export interface SessionsTable {
  id_hash: string;
  account_id: string;
  created_at: number;
  /** The absolute end of the session, whatever its use. */
  expires_at: number;
  /** The account's session generation when it started: a newer one ends it. */
  generation: number;
  /** Last use, renewed at most once a minute: the idle timeout counts from here. */
  last_seen_at: number;
  /** 1 for "keep me signed in" (longer limits, a persistent cookie), else 0. */
  persistent: number;
}

export interface SignInFailuresTable {
  /** `address:<email>|<client address>` or `email:<email>` (one budget each). */
  key: string;
  /** Attempts counted (each counted before its password is checked; a success deletes the row). */
  failures: number;
  /** When the last counted attempt was made. */
  last_failure_at: number;
  /** Before this instant, sign-in attempts for the key are refused without checking the password. */
  blocked_until: number;
  /** The id of the last counted attempt: how an attempt learns it was the one counted (migration 0012). */
  last_attempt_id: Generated<string>;
}

/**
 * An account's spend confirmation (migration 0073; docs/mcp.md "Spend confirmation"): MCP tools that
 * spend ask the person first when a call can cost more than `above_micros`, for API keys and for
 * sign-in grants separately. No row: the defaults (SPEND_CONFIRMATION_DEFAULTS).
 */
export interface SpendConfirmationsTable {
  account_id: string;
  above_micros: number;
  /** 1: calls made with an API key ask too (stdio server, /mcp with a key). */
  api_keys: number;
  /** 1: calls made with an OAuth access token (a host signed in to /mcp) ask. */
  sign_in: number;
  updated_at: number;
}

/**
 * MCP clients' answers to server-initiated requests (an elicitation), POSTed to a node other than the
 * one whose tool call waits for them (owned by src/edges/mcp; migration 0073). Minutes old at most.
 */
export interface McpAnswersTable {
  /** The request's globally unique JSON-RPC id. */
  id: string;
  /** The account that answered: only a call of that account takes it. */
  account_id: string;
  /** The JSON-RPC response as the client sent it. */
  message_json: string;
  created_at: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface AccountTables {
  spend_confirmations: SpendConfirmationsTable;
  mcp_answers: McpAnswersTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  upstream_keys: UpstreamKeysTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
}
