/** The tables of upstream capacity (src/capabilities/tasks/capacity; migrations 0022 and 0043). */

/**
 * One upstream capacity pool: a provider, an upstream model and a hash of the key (never the key).
 * What the engine learned of its limit and the hold a `Retry-After` put on it (migration 0022).
 */
export interface UpstreamPoolsTable {
  pool: string;
  provider: string;
  upstream_model: string;
  key_hash: string;
  /** Calls in flight the upstream took before refusing (AIMD); null until its first refusal. */
  learned_limit: number | null;
  /** Successes since the learned limit last moved (additive increase). */
  successes: number;
  /** Lowest the learned limit may go during the current burst of refusals (half of it before). */
  burst_floor: number;
  /** No call leaves before this time (the upstream's Retry-After), on any node. */
  hold_until: number;
  /** Earliest time a parked task may get a slot when none is free (hold end, window refill). */
  retry_at: number;
  updated_at: number;
  /** Last refusal read as a limit on calls at once (0: none); the limit is forgotten a while after (0043). */
  refused_at: number;
  /** Start of the ramp a pool with no learned limit climbs (0: none), from `ramp_base` calls. */
  ramp_since: number;
  ramp_base: number;
  /** The request budget the latest answer reported (OpenAI's x-ratelimit-*-requests); null: none. */
  quota_limit: number | null;
  quota_remaining: number | null;
  /** When that budget is whole again, and when it was read (epoch ms). */
  quota_reset_at: number;
  quota_seen_at: number;
}

/** One upstream call: its slot while `ended_at` is null, then a count of the per-minute window. */
export interface UpstreamCallsTable {
  id: string;
  pool: string;
  task_id: string;
  /** The lease owner that made it: the slot lives while that owner holds the task's lease. */
  owner: string;
  started_at: number;
  ended_at: number | null;
  /** 1 when the upstream refused it (429). */
  refused: number;
}

export interface CapacityTables {
  upstream_pools: UpstreamPoolsTable;
  upstream_calls: UpstreamCallsTable;
}
