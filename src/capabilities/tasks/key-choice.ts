import type { KeyAnswer, PooledKey } from '../accounts/index.js';
import type { ImageProvider, PollOutcome, ProviderRequest, SubmitOutcome } from '../providers/index.js';
import { type CapacityGate, isRateLimit } from './capacity/capacity-gate.js';
import type { CapacityPool } from './capacity/capacity-pool.js';
import type { TaskEngineDeps } from './task-engine-deps.js';
import type { TaskRow } from './tasks-repository.js';

/** One way a submit may go: a key, the capacity pool its calls draw on, and the request made with it. */
export interface SubmitChoice {
  pool: CapacityPool | undefined;
  request: ProviderRequest;
  /** The deployment's pooled key, when the call uses one (not the account's own key). */
  key?: PooledKey;
}

/** Pooled keys one submit may take out before its task takes the ordinary failure path. */
export const MAX_KEY_ROUNDS = 8;

type KeyDeps = Pick<TaskEngineDeps, 'keys' | 'keyPool'>;

/**
 * The keys a task's submit may use, in the order to try them: the account's own key alone (it
 * overrides the deployment's, as `set-upstream-key` always did); else the deployment's pool — every
 * key in service, by weighted turn (a key whose re-check is due first); a keyless provider needs
 * none. A string says why there is no key (the task fails with it).
 */
export async function submitChoices(
  deps: KeyDeps,
  gate: CapacityGate,
  provider: ImageProvider,
  task: TaskRow,
  requestWith: (apiKey: string | null) => ProviderRequest,
): Promise<SubmitChoice[] | string> {
  const single = (apiKey: string | null): SubmitChoice[] => [
    { pool: gate.poolOf(provider, task, apiKey), request: requestWith(apiKey) },
  ];
  if (!provider.requiresKey) return single(null);
  const own = await deps.keys.own?.(task.account_id, task.provider);
  if (own !== undefined) return single(own);
  if (!deps.keyPool) {
    const key = await deps.keys.resolve(task.account_id, task.provider);
    return key ? single(key) : `No upstream key is configured for provider ${task.provider}`;
  }
  const keys = await deps.keyPool.candidates(task.provider);
  if (keys.length === 0) return deps.keyPool.whyNone(task.provider);
  return keys.map((key) => ({
    pool: gate.poolOf(provider, task, key.apiKey, key),
    request: requestWith(key.apiKey),
    key,
  }));
}

/** The key of an accepted job's polls: the pooled key its submit used (whatever its state now), or the account's. */
export async function pollKeyOf(
  deps: KeyDeps,
  provider: ImageProvider,
  task: TaskRow,
): Promise<string | null> {
  if (!provider.requiresKey) return null;
  if (task.upstream_key_id !== null && deps.keyPool) {
    const key = await deps.keyPool.keyOf(task.provider, task.upstream_key_id);
    if (key) return key.apiKey;
  }
  return deps.keys.resolve(task.account_id, task.provider);
}

/**
 * What an upstream answer says of the pooled key that got it: an invalid key (401/403) or a spent
 * quota takes it out; a rate limit counts as a refusal; another failure is its last error.
 */
export function keyAnswerOf(outcome: SubmitOutcome | PollOutcome): KeyAnswer {
  if (outcome.kind !== 'failed') return { kind: 'ok' };
  if (outcome.cause === 'unauthorized')
    return { kind: 'out', reason: 'invalid_key', message: outcome.message };
  if (outcome.cause === 'quota_exhausted')
    return { kind: 'out', reason: 'no_quota', message: outcome.message };
  if (isRateLimit(outcome)) return { kind: 'refused', message: outcome.message };
  return { kind: 'failed', message: outcome.message };
}
