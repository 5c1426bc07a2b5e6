import type { ImageProvider, PollOutcome, ProviderFailure, SubmitOutcome } from '../providers/index.js';
import { isRateLimit } from './capacity/capacity-gate.js';
import { MAX_PARTIAL_FRAMES, storePartialFrame } from './partial-frames.js';
import { pollDelayMs, retryDelayMs } from './retry-schedule.js';
import type { StepContext } from './task-engine-deps.js';
import { fallBack } from './task-fallback.js';
import { fetchResult, rehostResult } from './task-result.js';
import type { LeasedTask, TaskPatch, TaskRow } from './tasks-repository.js';
import { upstreamQueuePatch } from './upstream-queue.js';

type Phase = 'submit' | 'poll';
type Pending = Extract<SubmitOutcome | PollOutcome, { kind: 'pending' }>;

/** Where an outcome came from: its phase, the step's signal, the pool and pooled key of a submit. */
export interface OutcomeSource {
  phase: Phase;
  signal: AbortSignal;
  poolId?: string | undefined;
  /** The pooled key the submit used (its spend and the job's polls are the key's). */
  keyId?: string | undefined;
  /** When the submit's call began. */
  startedAt?: number | undefined;
}

/**
 * What a submit that reached the upstream adds to the task's next write (a refusal for capacity is
 * counted apart, an open circuit's fail-fast never left): one more submit, and its first start.
 */
function submitted(task: TaskRow, source: OutcomeSource): TaskPatch {
  if (source.phase !== 'submit' || source.startedAt === undefined) return {};
  return {
    submits: (task.submits ?? 0) + 1,
    ...(task.started_at === null ? { started_at: source.startedAt } : {}),
  };
}

/** Records what the upstream answered a submit or a poll: a result, progress, or a failure. */
export async function applyOutcome(
  context: StepContext,
  leased: LeasedTask,
  provider: ImageProvider,
  outcome: SubmitOutcome | PollOutcome,
  source: OutcomeSource,
): Promise<void> {
  switch (outcome.kind) {
    case 'done': {
      const bytes = await fetchResult(context.deps, provider, outcome.image, source.signal);
      if (typeof bytes !== 'string')
        return rehostResult(
          context,
          leased,
          bytes,
          { usage: outcome.usage, turn: 'turn' in outcome ? outcome.turn : undefined },
          source.keyId,
          submitted(leased.task, source),
        );
      // The image exists upstream but its URL did not answer: a retry asks again and fetches anew
      // (a synchronous provider would make the image again, so it is retried at most once).
      const failure = { kind: 'failed', message: bytes, retryable: true, cause: 'network' } as const;
      return applyOutcome(
        context,
        leased,
        provider,
        { ...failure, maybeAccepted: source.phase === 'submit' },
        { phase: source.phase, signal: source.signal, startedAt: source.startedAt },
      );
    }
    case 'pending':
      return applyPending(context, leased.task, provider, outcome, source);
    case 'failed':
      return applyFailure(context, leased, provider, outcome, source);
    default: {
      const never: never = outcome;
      throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
    }
  }
}

/** A job under way: its progress, queue place and partial frame, and the next poll after a backoff. */
async function applyPending(
  { deps, write }: StepContext,
  task: TaskRow,
  provider: ImageProvider,
  outcome: Pending,
  source: OutcomeSource,
): Promise<void> {
  const { phase, keyId } = source;
  const now = deps.clock.now();
  const progress = Math.max(task.progress, Math.min(99, Math.floor(outcome.progress ?? task.progress)));
  const upstreamStatus = 'status' in outcome ? outcome.status : progress > 0 ? 'in_progress' : 'queued';
  // Never move back from in_progress to queued.
  const status = task.status === 'in_progress' ? 'in_progress' : upstreamStatus;
  const patch: TaskPatch = {
    status,
    progress,
    attempts: 0,
    needs_reconcile: 0,
    polls: task.polls + 1,
    next_run_at: now + pollDelayMs(provider, task.polls),
    lease_owner: null,
    lease_expires_at: null,
  };
  if ('upstreamId' in outcome && outcome.upstreamId) patch.upstream_id = outcome.upstreamId;
  Object.assign(patch, upstreamQueuePatch(task, outcome, status));
  if (phase === 'submit' && keyId) patch.upstream_key_id = keyId;
  if ('partial' in outcome && outcome.partial && task.partial_frames < MAX_PARTIAL_FRAMES)
    patch.partial_frames = await storePartialFrame(deps.blobs, task.id, task.partial_frames, outcome.partial);
  if (status === 'in_progress' && task.started_at === null) patch.started_at = now;
  await write(task, { ...patch, ...submitted(task, source) });
}

/**
 * A failure: a wait for capacity (a rate limit), the next route (a submit that cannot have been
 * accepted), a retry later within the attempts, or the end of the task.
 */
async function applyFailure(
  context: StepContext,
  leased: LeasedTask,
  provider: ImageProvider,
  outcome: ProviderFailure,
  source: OutcomeSource,
): Promise<void> {
  const { phase, poolId } = source;
  const { deps, write, fail } = context;
  const { task } = leased;
  const now = deps.clock.now();
  // A rate limit is not a failure: the task waits for capacity (its deadline bounds the wait),
  // spending none of its attempts, on the same route.
  if (isRateLimit(outcome)) return waitForCapacity(context, task, outcome, phase, poolId);
  // A fail-fast of an open circuit never reached the upstream: it waits for the probe without
  // spending the task's attempts (the task deadline still bounds the wait) or changing its mark.
  const sent = outcome.cause !== 'circuit_open';
  const also = sent ? submitted(task, source) : {};
  if (phase === 'submit' && (await fallBack(context, leased, outcome, also))) return;
  const attempts = task.attempts + (sent ? 1 : 0);
  // A sync call that may have been accepted upstream is retried at most once (never a blind
  // loop). An async provider's resubmit reconciles (finds the job it may have created) instead
  // of creating another, so it keeps the ordinary retry budget.
  const mayRetry =
    outcome.retryable &&
    attempts < deps.options.maxAttempts &&
    !(outcome.maybeAccepted && !provider.submitsInline && task.attempts >= 1);
  if (!mayRetry) {
    await fail(task, outcome.message, also);
    return;
  }
  deps.logger.info({ taskId: task.id, attempts, phase }, 'retryable upstream failure; retrying later');
  await write(task, {
    ...also,
    attempts,
    // Remembered durably, so whichever worker retries asks the provider to reconcile; a
    // submit that surely created nothing clears the mark set before it was sent.
    ...(phase === 'submit' && sent ? { needs_reconcile: outcome.maybeAccepted ? 1 : 0 } : {}),
    // Never past the deadline: the task is looked at then, and ends on time if still unfinished.
    next_run_at: Math.min(task.deadline_at, now + retryDelayMs(attempts, outcome.retryAfterMs)),
    lease_owner: null,
    lease_expires_at: null,
  });
}

/**
 * After a 429: a refused submit parks the task on its pool (the release already held the pool for
 * the Retry-After; the sweep calls it back), a refused poll asks again after the wait.
 */
async function waitForCapacity(
  { deps, write }: StepContext,
  task: TaskRow,
  outcome: ProviderFailure,
  phase: Phase,
  poolId: string | undefined,
): Promise<void> {
  const now = deps.clock.now();
  const delay = Math.max(outcome.retryAfterMs ?? 0, phase === 'poll' ? 1000 : 0);
  deps.logger.info(
    { taskId: task.id, phase, retryAfterMs: outcome.retryAfterMs },
    'upstream rate limit; waiting',
  );
  // A refused submit created nothing upstream: the next one need not reconcile.
  const waiting: TaskPatch =
    phase === 'submit'
      ? {
          waiting_for: 'upstream_capacity',
          capacity_pool: poolId ?? null,
          waiting_since: task.waiting_since ?? now,
          needs_reconcile: 0,
        }
      : {};
  await write(task, {
    ...waiting,
    // Parked on a pool: called back when it has room. Without a pool: asked again after the wait.
    next_run_at: poolId ? task.deadline_at : Math.min(task.deadline_at, now + Math.max(delay, 1000)),
    lease_owner: null,
    lease_expires_at: null,
  });
}
