import type { TaskStatus } from '../../../base/domain/task-status.js';
import type { TaskKeyColumns } from './provider-keys.js';

/** The table of tasks (src/capabilities/tasks): one image each, and the engine's state of it. */

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
  /** Calls the upstream refused (429) for this task (migration 0062; upstream_calls rows are pruned). */
  upstream_refusals?: number;
  /** The task's moves to a next route, JSON array of TaskFallback (migration 0062); null: none. */
  fallbacks_json?: string | null;
  /** The model the task was asked for, its generation's (migration 0068: the task log's walk by model). */
  model: string | null;
  /**
   * Calls that submitted the task upstream and were answered (or failed) other than by a refusal
   * for capacity (those are `upstream_refusals`), over every route (migration 0068).
   */
  submits?: number;
  /** The image this task's generation refines (migration 0069, lineage); null or absent: none. */
  parent_task_id?: string | null;
  /** The seed sent upstream for this image (migration 0072); null or absent: the route takes none. */
  seed?: number | null;
  /** The trace the task belongs to (migration 0077, 32 hex); null or absent: not traced. */
  trace_id?: string | null;
  /** The task's own span (16 hex), the parent of every worker's span of it (migration 0077). */
  trace_span_id?: string | null;
  /** The span the task's span is a child of: the request's that created it (migration 0077). */
  trace_parent_span_id?: string | null;
  /** When a zero-retention work's image was delivered: fetched once, or answered inline (migration 0076). */
  delivered_at?: number | null;
  /** 1 when the task's work is zero-retention (migration 0076): its record says `retention: "none"`. */
  zero_retention?: number;
}

/** One move of a task to its model's next route (task-fallback.ts), as `fallbacks_json` keeps it. */
export interface TaskFallback {
  /** Route ids (`provider/upstreamModel`). */
  from: string;
  to: string;
  /** When it moved (epoch ms). */
  at: number;
  /** The failure of the submit that made it move. */
  error: string;
}

/** The tables above, as the database's schema (`Database`) lists them. */
/**
 * A task's kept conversation turn (migration 0071): what its upstream must be sent back to refine
 * the task's image (Gemini's signed parts). The engine's only; never in an API answer.
 */
export interface TaskTurnsTable {
  task_id: string;
  account_id: string;
  /** The provider that answered the turn (its signatures are only that provider's). */
  provider: string;
  /** The turn (src/capabilities/tasks/task-turns.ts `KeptTurn`), JSON. */
  turn_json: string;
  created_at: number;
}

export interface TaskTables {
  tasks: TasksTable;
  task_turns: TaskTurnsTable;
}
