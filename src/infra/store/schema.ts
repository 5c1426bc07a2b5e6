import type { Generated } from 'kysely';
import type { AssetKind } from '../../base/domain/asset-kinds.js';
import type { DeliveryState } from '../../base/domain/delivery-states.js';
import type { GenerationMode } from '../../base/domain/generation-modes.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import type { TaskStatus } from '../../base/domain/task-status.js';
import type { Tier } from '../../base/domain/tiers.js';
import type { WebhookEventType } from '../../base/domain/webhook-events.js';
import type { CapacityTables } from './capacity-tables.js';
import type { CurationTables } from './curation-tables.js';
import type { OAuthTables } from './oauth-tables.js';
import type { ProviderKeyTables, TaskKeyColumns } from './provider-key-tables.js';

export type { UpstreamCallsTable, UpstreamPoolsTable } from './capacity-tables.js';

/**
 * Table shapes. Timestamps are integer milliseconds since the epoch, booleans are integers (0/1) and
 * JSON is text, so the same queries run on SQLite and PostgreSQL. A text column that only ever holds
 * one of a closed set of values has that union as its type (its writers are checked against it).
 */
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
}

export interface UpstreamKeysTable {
  account_id: string;
  provider: string;
  ciphertext: string;
  created_at: number;
}

export interface GenerationsTable {
  id: string;
  account_id: string;
  /** Where the request came from: the API (keys) or the website (sessions). */
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: GenerationMode;
  aspect: string;
  /**
   * 1 for an edit or fusion whose caller named no aspect: the providers keep the reference's shape
   * (`aspect` is the model's ratio nearest it). Absent on rows written before migration 0021 (0).
   */
  aspect_from_reference?: number;
  image_size: ImageSize;
  image_count: number;
  /** The request's imageUrls as given (JSON array). */
  refs_json: string;
  /** Blob keys of the stored reference images, in order (JSON array). */
  ref_keys_json: string;
  /** Blob key of an edit's mask (issue 29); null without one, absent on rows before migration 0026. */
  mask_key?: string | null;
  /** The quality tier sent upstream (issue 41, migration 0058); null: none (the upstream's auto). */
  quality?: string | null;
  /** 1 when generate answered upstream_error: kept for the record, left out of history. */
  rejected: number;
  created_at: number;
  /** Set when the owner deleted it from saved works: hidden from the gallery, marked removed in history. */
  deleted_at: number | null;
}

/** Per-account totals of history and saved works, kept in the same transactions that change them. */
export interface GenerationCountsTable {
  account_id: string;
  /** Generations not rejected (what history lists). */
  history_total: number;
  /** Generations neither rejected nor deleted from saved works (what the gallery lists). */
  saved_total: number;
  /** Moves with every change of what the account's history shows (pages cached in memory check it). */
  history_version: Generated<number>;
}

export interface TasksTable extends TaskKeyColumns {
  id: string;
  generation_id: string;
  account_id: string;
  idx: number;
  provider: string;
  upstream_model: string;
  status: TaskStatus;
  progress: number;
  error: string | null;
  image_url: string | null;
  blob_key: string | null;
  width: number | null;
  height: number | null;
  content_type: string | null;
  bytes: number | null;
  upstream_id: string | null;
  attempts: number;
  /** 1 after a submit that may have reached the upstream: the next submit must reconcile. */
  needs_reconcile: number;
  polls: number;
  next_run_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  deadline_at: number;
  started_at: number | null;
  finished_at: number | null;
  created_at: number;
  updated_at: number;
  /**
   * `upstream_capacity` while the task waits for a slot of its upstream pool; `upstream_queue` while
   * submitted and waiting in the upstream's own queue (fal); else null.
   */
  waiting_for: 'upstream_capacity' | 'upstream_queue' | null;
  /** With `upstream_queue`: its place in the upstream's queue as last read (1 = next); else null. */
  upstream_queue_position?: number | null;
  /** The pool a waiting task waits for (see UpstreamPoolsTable); null when it waits for nothing. */
  capacity_pool: string | null;
  /** When the task began waiting for upstream capacity (kept across parks until it gets a slot). */
  waiting_since: number | null;
  /** Partial frames the request asked for (0-3, OpenAI's `partial_images`; migration 0025). */
  partial_images: number;
  /** Partial frames stored so far (blobs `partials/<task>-<i>.png`, removed when the task ends). */
  partial_frames: number;
  /** The token usage the upstream reported with the result (OpenAI's `usage`, JSON); null when none. */
  usage_json: string | null;
  /** What the completed task cost, in micro-dollars (migration 0030); null when unfinished, failed or unpriced. */
  cost_micros: number | null;
  /** Where `cost_micros` came from: `upstream_usage` (token figures × prices) or `catalog_price`. */
  cost_source: 'upstream_usage' | 'catalog_price' | null;
  /** The most the task can cost, reserved against budgets while it is unfinished (micro-dollars). */
  cost_reserved_micros: number;
  /** A quote's most per image (issue 41, migration 0059): the task is never charged more; null without one. */
  cost_cap_micros?: number | null;
  /** What the upstream billed beyond the quote's cap, absorbed by the operator; null when nothing was. */
  cost_absorbed_micros?: number | null;
  /** The API key that created the task (`key_…`, migration 0031); null for the website's session. */
  api_key_id: string | null;
}

/** Images that reached a final state, per account, UTC day (`YYYY-MM-DD`) and catalog model. */
export interface UsageDailyTable {
  account_id: string;
  day: string;
  model: string;
  completed: number;
  failed: number;
  /** What the day's completed images cost, in micro-dollars (migration 0030). */
  cost_micros: number;
  /** What upstreams billed beyond quotes' maxima on them, absorbed by the operator (migration 0061). */
  absorbed_micros: number;
}

/** An account's budgets in micro-dollars per UTC day and month; null = none (owned by src/capabilities/usage). */
export interface AccountBudgetsTable {
  account_id: string;
  daily_micros: number | null;
  monthly_micros: number | null;
  updated_at: number;
}

/** An API key's budgets, as an account's (migration 0031; owned by src/capabilities/usage). */
export type KeyBudgetsTable = AccountBudgetsTable & { key_id: string };

export interface AssetsTable {
  id: string;
  account_id: string;
  kind: AssetKind;
  blob_key: string;
  url: string;
  content_type: string;
  bytes: number;
  width: number;
  height: number;
  sha256: string;
  generation_id: string | null;
  task_id: string | null;
  created_at: number;
  /** An upload's file name as sent (migration 0027); null for results and older uploads. */
  original_name: string | null;
}

/** Uploads an account stored on one UTC day and their bytes: its daily upload quota (migration 0017). */
export interface UploadUsageTable {
  account_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  uploads: number;
  bytes: number;
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

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  status_code: number | null;
  response_body: string | null;
  created_at: number;
  /** The process working on an in-progress key (see jobs/process-owner); kept once done. */
  owner: string | null;
  /** When an in-progress claim runs out unless renewed; null once done. */
  expires_at: number | null;
}

/** Idempotency records of an account created in one hour (`hour`: its start, epoch ms); migration 0016. */
export interface IdempotencyUsageTable {
  account_id: string;
  hour: number;
  records: number;
}

/** An account's Standard Webhooks signing secret (`whsec_…`), sealed with the master key. */
export interface WebhookSecretsTable {
  account_id: string;
  ciphertext: string;
  created_at: number;
  /** The secret the last rotation replaced, sealed; deliveries carry its signature too until it expires. */
  previous_ciphertext: string | null;
  previous_expires_at: number | null;
}

/** The callbackUrl given with a generate request: every task of the generation reports there. */
export interface WebhookCallbacksTable {
  generation_id: string;
  account_id: string;
  url: string;
  created_at: number;
}

/** One webhook message (`msg_…`) for a task's final state, and where its delivery stands. */
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  task_id: string;
  url: string;
  type: WebhookEventType;
  /** The exact JSON body that is signed and sent, the same on every attempt. */
  payload: string;
  state: DeliveryState;
  /** Attempts made in the current series (a redeliver starts a new series). */
  attempts: number;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/**
 * The webhooks' outbox: the finished record of a task whose generation has a callback, written by
 * the write that ended the task (same transaction). Deliveries are built from it, not from `tasks`;
 * kept for the sweep's window (a delivery never enqueued is found from here), then pruned.
 */
export interface WebhookOutboxTable {
  task_id: string;
  generation_id: string;
  account_id: string;
  status: TasksTable['status'];
  progress: number;
  image_url: string | null;
  error: string | null;
  width: number | null;
  height: number | null;
  content_type: string | null;
  bytes: number | null;
  provider: string;
  finished_at: number | null;
}

/** The website's creation view, per account (owned by src/web). */
export interface CreationViewsTable {
  account_id: string;
  /** Finished cards up to this instant were cleared: the view leaves out tasks final by then. */
  cleared_at: number;
}

/** A named preset of the website's Create form, per account (owned by src/edges/website; migration 0034). */
export interface PromptPresetsTable {
  account_id: string;
  name: string;
  /** The preset's settings as the website sent them (JSON: model, aspect, imageSize, count, suffix). */
  settings_json: string;
  updated_at: number;
}

export interface Database extends CurationTables, OAuthTables, ProviderKeyTables, CapacityTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  upstream_keys: UpstreamKeysTable;
  generations: GenerationsTable;
  generation_counts: GenerationCountsTable;
  tasks: TasksTable;
  usage_daily: UsageDailyTable;
  account_budgets: AccountBudgetsTable;
  key_budgets: KeyBudgetsTable;
  assets: AssetsTable;
  upload_usage: UploadUsageTable;
  idempotency_keys: IdempotencyKeysTable;
  idempotency_usage: IdempotencyUsageTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  creation_views: CreationViewsTable;
  prompt_presets: PromptPresetsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_callbacks: WebhookCallbacksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_outbox: WebhookOutboxTable;
  /** Kysely's own bookkeeping tables are created by the migrator. */
  _placeholder?: { id: Generated<number> };
}
