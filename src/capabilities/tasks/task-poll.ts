import type { ImageProvider, PollOutcome, ProviderRequest } from '../providers/index.js';
import { isRateLimit } from './capacity/capacity-gate.js';
import type { StepContext } from './task-engine-deps.js';
import { endUpstreamSpan, startUpstreamSpan } from './task-traces.js';
import type { LeasedTask } from './tasks-repository.js';

/** What a poll came to: the upstream's answer, or nothing asked (the key is held, or the lease lost). */
export type PollResult = { kind: 'outcome'; outcome: PollOutcome } | { kind: 'held' };

/**
 * The poll of a leased task's async job, on its capacity pool (provider, upstream model, key): a
 * pool held by a Retry-After — a refused submit's or a refused poll's, seen by any worker — is not
 * asked at all until the hold ends (the task looks again then); a poll answered with a rate limit
 * holds the whole pool, as a refused submit does, so the other tasks' polls and submits on it wait
 * too, on every worker.
 */
export function createTaskPoll({ deps, write, gate }: Pick<StepContext, 'deps' | 'write' | 'gate'>) {
  return async function poll(
    leased: LeasedTask,
    provider: ImageProvider,
    request: ProviderRequest & { upstreamId: string },
  ): Promise<PollResult> {
    const { task } = leased;
    const pool = gate.poolOf(provider, task, request.apiKey);
    const heldUntil = pool ? await gate.heldUntil(pool) : undefined;
    if (heldUntil !== undefined) {
      await write(task, {
        // Never past the deadline: the task is looked at then, and ends on time if still unfinished.
        next_run_at: Math.min(task.deadline_at, heldUntil),
        lease_owner: null,
        lease_expires_at: null,
      });
      deps.logger.debug({ taskId: task.id, heldUntil }, 'upstream key held; poll deferred');
      return { kind: 'held' };
    }
    const span = startUpstreamSpan(deps.tracing, task, 'poll', deps.clock.now());
    let outcome: PollOutcome | undefined;
    try {
      outcome = await provider.poll(request);
    } finally {
      endUpstreamSpan(span, outcome, deps.clock.now());
    }
    if (pool && outcome.kind === 'failed' && isRateLimit(outcome))
      await gate.hold(pool, outcome.retryAfterMs);
    return { kind: 'outcome', outcome };
  };
}
