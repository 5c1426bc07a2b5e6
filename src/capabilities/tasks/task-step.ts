import { markTask } from '../../base/observability/stage-timing.js';
import type { ImageProvider, ProviderRequest } from '../providers/index.js';
import { keyAnswerOf, MAX_KEY_ROUNDS, pollKeyOf, submitChoices } from './key-choice.js';
import { buildRequest } from './provider-request.js';
import { createReferenceDecoding } from './reference-decoding.js';
import { retryDelayMs } from './retry-schedule.js';
import type { StepContext } from './task-engine-deps.js';
import { applyOutcome } from './task-outcome.js';
import { createTaskPoll } from './task-poll.js';
import { createTaskSubmit } from './task-submit.js';
import { historyOf } from './task-turns.js';
import type { LeasedTask, TaskRow } from './tasks-repository.js';

/** The message of a task that reached its deadline (naming the wait when it waited for capacity). */
export function deadlineMessage(task: TaskRow, deadlineMs: number): string {
  const minutes = Math.round(deadlineMs / 60000);
  const waited = deadlineMs >= 60_000 ? `${minutes} minutes` : `${Math.round(deadlineMs / 1000)} seconds`;
  return task.waiting_for === 'upstream_capacity'
    ? `Task timed out after ${waited} waiting for upstream capacity (${task.provider})`
    : `Task timed out: no result within ${minutes} minutes`;
}

/** A step's context with the upstream calls built on it: the submit, the poll, the reference loads. */
interface StepParts extends StepContext {
  submit: ReturnType<typeof createTaskSubmit>;
  poll: ReturnType<typeof createTaskPoll>;
  decoding: ReturnType<typeof createReferenceDecoding>;
}

/** Builds a task's upstream request with an API key (the request's images already loaded). */
type RequestWith = (apiKey: string | null) => ProviderRequest;

/**
 * One step of a leased task — submit, poll, or finish — against its upstream provider, then the
 * copy of a result into blob storage. Every outcome is written through the lease-guarded `write`.
 */
export function createTaskStep(context: StepContext) {
  const { deps, write, gate } = context;
  const parts: StepParts = {
    ...context,
    submit: createTaskSubmit({ deps, write, gate }),
    poll: createTaskPoll({ deps, write, gate }),
    decoding: createReferenceDecoding({ blobs: deps.blobs }),
  };
  /** Works one leased task one step: submit, poll, or finish. Never throws. */
  return (leased: LeasedTask, controller: AbortController): Promise<void> => step(parts, leased, controller);
}

/** Works one leased task one step: submit, poll, or finish. Never throws. */
async function step(parts: StepParts, leased: LeasedTask, controller: AbortController): Promise<void> {
  const { deps, fail } = parts;
  const { task } = leased;
  markTask(task.id, 'handoff');
  try {
    if (deps.clock.now() >= task.deadline_at) {
      if (await fail(task, deadlineMessage(task, deps.options.taskDeadlineMs))) parts.cancelUpstream(task);
      return;
    }
    const provider = deps.providers.get(task.provider);
    if (!provider) {
      await fail(task, `Provider "${task.provider}" is not configured on this server`);
      return;
    }
    const refKeys = JSON.parse(leased.generation.ref_keys_json) as string[];
    const references = await parts.decoding.load(task.account_id, refKeys, 'Reference image');
    const { mask_key: maskKey } = leased.generation;
    const masks = maskKey ? await parts.decoding.load(task.account_id, [maskKey], 'Mask') : [];
    const unloadable = [references, masks].find((loaded) => typeof loaded === 'string');
    if (typeof references === 'string' || typeof masks === 'string') {
      await fail(task, String(unloadable));
      return;
    }
    // The conversation a refinement continues goes with the submit (a poll sends nothing upstream).
    const history = task.upstream_id === null ? await historyOf(deps.turns, parts.decoding, task) : [];
    const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(deps.options.upstreamTimeoutMs)]);
    const loaded = { references, masks, history };
    const requestWith: RequestWith = (apiKey) => buildRequest(leased, loaded, apiKey, signal);
    if (task.upstream_id === null) await submitStep(parts, leased, provider, requestWith, signal);
    else await pollStep(parts, leased, provider, requestWith, controller, signal);
  } catch (error) {
    await recordThrown(parts, task, error);
  }
}

/**
 * The submit of a task: with the account's own key, or the first key of the deployment's pool
 * with a slot. A pooled key the upstream answers "invalid key" or "no quota left" is taken out
 * and the submit goes again at once on the pool's other keys (a key at most once each).
 */
async function submitStep(
  parts: StepParts,
  leased: LeasedTask,
  provider: ImageProvider,
  requestWith: RequestWith,
  signal: AbortSignal,
): Promise<void> {
  const { deps } = parts;
  const { task } = leased;
  for (let round = 0; ; round++) {
    const choices = await submitChoices(deps, parts.gate, provider, task, requestWith);
    if (typeof choices === 'string') {
      await parts.fail(task, choices);
      return;
    }
    const result = await parts.submit(leased, provider, choices);
    // Parked for capacity, or the lease was lost before the call (which was then never made).
    if (result.kind !== 'outcome') return;
    const { outcome, choice, startedAt, released } = result;
    if (choice.key && deps.keyPool) {
      const keyOut = await deps.keyPool.learn(choice.key, keyAnswerOf(outcome));
      if (keyOut && round < MAX_KEY_ROUNDS) {
        await released;
        continue;
      }
    }
    const source = {
      phase: 'submit',
      signal,
      poolId: choice.pool?.id,
      keyId: choice.key?.id,
      startedAt,
    } as const;
    try {
      await applyOutcome(afterRelease(parts, released), leased, provider, outcome, source);
    } finally {
      await released;
    }
    return;
  }
}

/**
 * The step's writes, each after the slot's release: a result is fetched and stored while its slot
 * is released (the release's transaction beside the file's write: issue 48), and the write that
 * records it, and lets go of the lease, comes after.
 */
function afterRelease(parts: StepParts, released: Promise<void> | undefined): StepParts {
  if (released === undefined) return parts;
  return {
    ...parts,
    write: async (task, patch, withFinal) => {
      await released;
      return parts.write(task, patch, withFinal);
    },
    fail: async (task, message, also) => {
      await released;
      return parts.fail(task, message, also);
    },
  };
}

/** The poll of a submitted task's upstream job, with the key that submitted it. */
async function pollStep(
  parts: StepParts,
  leased: LeasedTask,
  provider: ImageProvider,
  requestWith: RequestWith,
  controller: AbortController,
  signal: AbortSignal,
): Promise<void> {
  const { task } = leased;
  const upstreamId = task.upstream_id;
  if (upstreamId === null) return;
  const apiKey = await pollKeyOf(parts.deps, provider, task);
  if (provider.requiresKey && !apiKey) {
    await parts.fail(task, `No upstream key is configured for provider ${task.provider}`);
    return;
  }
  const request = requestWith(apiKey);
  const polled = await parts.poll(leased, provider, { ...request, upstreamId });
  // Aborted by a stop or a lost lease (a render's wait left): a pending answer holds nothing to
  // keep, and the stop gives every lease back in one write (2,000 step writes took 16 s).
  if (controller.signal.aborted && polled.kind === 'outcome' && polled.outcome.kind === 'pending') return;
  if (polled.kind === 'outcome')
    await applyOutcome(parts, leased, provider, polled.outcome, { phase: 'poll', signal });
}

/** A thrown error is a bug or an infrastructure fault (disk, database): retry, then give up. */
async function recordThrown(parts: StepParts, task: TaskRow, error: unknown): Promise<void> {
  const { deps } = parts;
  deps.logger.error({ err: error, taskId: task.id }, 'task step failed');
  try {
    const attempts = task.attempts + 1;
    if (attempts >= deps.options.maxAttempts)
      await parts.fail(task, 'Internal error while processing the task');
    else
      await parts.write(task, {
        attempts,
        next_run_at: Math.min(task.deadline_at, deps.clock.now() + retryDelayMs(attempts, undefined)),
        lease_owner: null,
        lease_expires_at: null,
      });
  } catch (writeError) {
    deps.logger.error(
      { err: writeError, taskId: task.id },
      'could not record the failure; the lease will expire',
    );
  }
}
