/** The tables of the deployment's pools of upstream keys (src/capabilities/accounts/provider-key*.ts; migration 0040). */

/** Why a pooled key was taken out of service (an answer of the upstream, not the operator's switch). */
export type KeyOutReason = 'invalid_key' | 'no_quota';

/**
 * One upstream key of the deployment's pool for a provider (migration 0040): sealed under the master
 * key (null for the environment's key, named `env`, which each node reads from its environment).
 */
export interface ProviderKeysTable {
  id: string;
  provider: string;
  name: string;
  ciphertext: string | null;
  /** keyHashOf(key): the capacity pool's key part when the key has no project; the env key's check. */
  key_hash: string;
  /** Keys of one project (Gemini: quotas are per project) share one capacity pool. */
  project: string | null;
  weight: number;
  /** The operator's limit on calls at once on the key's pool (the smallest of its project's keys). */
  max_in_flight: number | null;
  /** 0 when the operator disabled the key. */
  enabled: number;
  out_reason: KeyOutReason | null;
  out_since: number | null;
  /** When a key taken out may serve one call again, as the re-check; null while in service. */
  recheck_at: number | null;
  /** Re-checks failed since it was taken out (each doubles the wait for the next). */
  rechecks: number;
  last_error: string | null;
  last_error_at: number | null;
  /** Calls the upstream refused on this key (rate limits, and the answers that took it out). */
  refusals: number;
  created_at: number;
  updated_at: number;
}

/** The column of tasks that names the pooled key their submit used. */
export interface TaskKeyColumns {
  /** The pooled upstream key the task's submit used (migration 0040); null for an account's own key. */
  upstream_key_id: string | null;
}

export interface ProviderKeyTables {
  provider_keys: ProviderKeysTable;
}
