import sharp from 'sharp';
import { DomainError } from '../../base/domain/errors.js';
import { extensionOf } from '../../infra/blobs/blob-store.js';
import { pngDimensions } from '../../infra/images/png-header.js';
import type {
  ImageProvider,
  ImageUsage,
  PollOutcome,
  ProviderFailure,
  ProviderImage,
  ProviderRequest,
  SubmitOutcome,
} from '../providers/provider.js';
import { isRateLimit } from './capacity/capacity-gate.js';
import { keyAnswerOf, MAX_KEY_ROUNDS, pollKeyOf, submitChoices } from './key-choice.js';
import { MAX_PARTIAL_FRAMES, storePartialFrame } from './partial-frames.js';
import { buildRequest } from './provider-request.js';
import { createReferenceDecoding } from './reference-decoding.js';
import { pollDelayMs, retryDelayMs } from './retry-schedule.js';
import { completedCost } from './task-cost.js';
import type { StepContext } from './task-engine-deps.js';
import { createTaskPoll } from './task-poll.js';
import { routeIdOfRow } from './task-route.js';
import { createTaskSubmit } from './task-submit.js';
import type { LeasedTask, TaskPatch, TaskRow } from './tasks-repository.js';
import { upstreamQueuePatch } from './upstream-queue.js';

const contentTypeOfFormat: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** The message of a task that reached its deadline (naming the wait when it waited for capacity). */
export function deadlineMessage(task: TaskRow, deadlineMs: number): string {
  const minutes = Math.round(deadlineMs / 60000);
  const waited = deadlineMs >= 60_000 ? `${minutes} minutes` : `${Math.round(deadlineMs / 1000)} seconds`;
  return task.waiting_for === 'upstream_capacity'
    ? `Task timed out after ${waited} waiting for upstream capacity (${task.provider})`
    : `Task timed out: no result within ${minutes} minutes`;
}

/**
 * One step of a leased task — submit, poll, or finish — against its upstream provider, then the
 * copy of a result into blob storage. Every outcome is written through the lease-guarded `write`.
 */
export function createTaskStep({ deps, write, fail, cancelUpstream, gate }: StepContext) {
  const { providers, clock, logger, options } = deps;
  const submit = createTaskSubmit({ deps, write, gate });
  const poll = createTaskPoll({ deps, write, gate });
  const decoding = createReferenceDecoding({ blobs: deps.blobs });

  /** The result's bytes, or why its URL could not be read (the upstream's URL, fetched safely). */
  async function fetchResult(provider: ImageProvider, image: ProviderImage, signal: AbortSignal) {
    if ('bytes' in image) return image.bytes;
    try {
      return await deps.downloadImage(image.url, signal);
    } catch (error) {
      // The fetcher's messages name "the result URL" (the subject it is given) and are caller-safe.
      const reason = error instanceof DomainError ? error.message : 'download failed';
      return `Could not download the result from ${provider.name} (${reason})`;
    }
  }

  /** Copies a result into blob storage and records it as an asset, then marks the task completed. */
  async function rehostResult(
    leased: LeasedTask,
    bytes: Buffer,
    usage: ImageUsage | undefined,
    keyId: string | undefined,
  ): Promise<void> {
    const { task } = leased;
    // A PNG's header chunk is read here; other formats (and a PNG whose header is not whole) by
    // libvips' header reader, a round trip through the thread pool per result.
    const png = pngDimensions(bytes);
    const meta = png
      ? { format: 'png', ...png, pageHeight: undefined }
      : await sharp(bytes, { limitInputPixels: false }).metadata();
    const contentType = contentTypeOfFormat[meta.format ?? ''];
    if (!contentType || !meta.width || !meta.height) {
      await fail(
        task,
        `The upstream returned a result that is not an image (${meta.format ?? 'unknown format'})`,
      );
      return;
    }
    const key = `results/${task.id}.${extensionOf(contentType)}`;
    await deps.blobs.put(key, bytes, contentType);
    const url = deps.blobUrl(key);
    const height = meta.pageHeight ?? meta.height;
    await deps.assets.insertResult({
      accountId: task.account_id,
      generationId: task.generation_id,
      taskId: task.id,
      blobKey: key,
      url,
      contentType,
      bytes,
      width: meta.width,
      height,
    });
    await write(task, {
      status: 'completed',
      progress: 100,
      image_url: url,
      blob_key: key,
      width: meta.width,
      height,
      content_type: contentType,
      bytes: bytes.length,
      error: null,
      usage_json: usage ? JSON.stringify(usage) : null,
      ...completedCost(deps.routesOf, leased, usage),
      ...(keyId ? { upstream_key_id: keyId } : {}),
      finished_at: clock.now(),
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  async function applyOutcome(
    leased: LeasedTask,
    provider: ImageProvider,
    outcome: SubmitOutcome | PollOutcome,
    phase: 'submit' | 'poll',
    signal: AbortSignal,
    poolId?: string,
    /** The pooled key the submit used (its spend and the job's polls are the key's). */
    keyId?: string,
  ): Promise<void> {
    const { task } = leased;
    const now = clock.now();
    switch (outcome.kind) {
      case 'done': {
        const bytes = await fetchResult(provider, outcome.image, signal);
        if (typeof bytes !== 'string') return rehostResult(leased, bytes, outcome.usage, keyId);
        // The image exists upstream but its URL did not answer: a retry asks again and fetches anew
        // (a synchronous provider would make the image again, so it is retried at most once).
        const failure = { kind: 'failed', message: bytes, retryable: true, cause: 'network' } as const;
        return applyOutcome(
          leased,
          provider,
          { ...failure, maybeAccepted: phase === 'submit' },
          phase,
          signal,
        );
      }
      case 'pending': {
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
          patch.partial_frames = await storePartialFrame(
            deps.blobs,
            task.id,
            task.partial_frames,
            outcome.partial,
          );
        if (status === 'in_progress' && task.started_at === null) patch.started_at = now;
        await write(task, patch);
        return;
      }
      case 'failed': {
        // A rate limit is not a failure: the task waits for capacity (its deadline bounds the wait),
        // spending none of its attempts, on the same route.
        if (isRateLimit(outcome)) return waitForCapacity(task, outcome, phase, poolId);
        if (phase === 'submit' && (await fallBack(leased, outcome))) return;
        // A fail-fast of an open circuit never reached the upstream: it waits for the probe without
        // spending the task's attempts (the task deadline still bounds the wait) or changing its mark.
        const sent = outcome.cause !== 'circuit_open';
        const attempts = task.attempts + (sent ? 1 : 0);
        // A sync call that may have been accepted upstream is retried at most once (never a blind
        // loop). An async provider's resubmit reconciles (finds the job it may have created) instead
        // of creating another, so it keeps the ordinary retry budget.
        const mayRetry =
          outcome.retryable &&
          attempts < options.maxAttempts &&
          !(outcome.maybeAccepted && !provider.submitsInline && task.attempts >= 1);
        if (!mayRetry) {
          await fail(task, outcome.message);
          return;
        }
        logger.info({ taskId: task.id, attempts, phase }, 'retryable upstream failure; retrying later');
        await write(task, {
          attempts,
          // Remembered durably, so whichever worker retries asks the provider to reconcile; a
          // submit that surely created nothing clears the mark set before it was sent.
          ...(phase === 'submit' && sent ? { needs_reconcile: outcome.maybeAccepted ? 1 : 0 } : {}),
          // Never past the deadline: the task is looked at then, and ends on time if still unfinished.
          next_run_at: Math.min(task.deadline_at, now + retryDelayMs(attempts, outcome.retryAfterMs)),
          lease_owner: null,
          lease_expires_at: null,
        });
        return;
      }
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * After a 429: a refused submit parks the task on its pool (the release already held the pool for
   * the Retry-After; the sweep calls it back), a refused poll asks again after the wait.
   */
  async function waitForCapacity(
    task: TaskRow,
    outcome: ProviderFailure,
    phase: 'submit' | 'poll',
    poolId: string | undefined,
  ): Promise<void> {
    const now = clock.now();
    const delay = Math.max(outcome.retryAfterMs ?? 0, phase === 'poll' ? 1000 : 0);
    logger.info(
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

  /**
   * Moves the task to its model's next upstream route when this submit failed with a retryable
   * fault that the upstream cannot have accepted (a refused connection, a 5xx answer, an open
   * circuit): the next step submits there at once. Routes only move forward, so a provider that
   * may have accepted a submit is never sent the task again. False when there is no next route.
   */
  async function fallBack(leased: LeasedTask, outcome: ProviderFailure): Promise<boolean> {
    if (!outcome.retryable || outcome.maybeAccepted) return false;
    const { task } = leased;
    const routes = deps.routesOf?.(leased.generation.model) ?? [];
    const here = routes.findIndex((r) => r.id === routeIdOfRow(task));
    const next = here < 0 ? undefined : routes.slice(here + 1).find((route) => providers.get(route.provider));
    if (!next) return false;
    const moved = await write(task, {
      provider: next.provider,
      upstream_model: next.upstreamModel,
      attempts: 0,
      needs_reconcile: 0,
      upstream_id: null,
      next_run_at: clock.now(),
      lease_owner: null,
      lease_expires_at: null,
    });
    if (moved) {
      deps.metrics?.upstreamFallbacks.inc({ from: routes[here]?.provider ?? '', to: next.provider });
      logger.warn(
        { taskId: task.id, from: routes[here]?.provider, to: next.provider, cause: outcome.cause },
        'upstream submit failed; moving the task to the next route',
      );
    }
    return moved;
  }

  /**
   * The submit of a task: with the account's own key, or the first key of the deployment's pool
   * with a slot. A pooled key the upstream answers "invalid key" or "no quota left" is taken out
   * and the submit goes again at once on the pool's other keys (a key at most once each).
   */
  async function submitStep(
    leased: LeasedTask,
    provider: ImageProvider,
    requestWith: (apiKey: string | null) => ProviderRequest,
    signal: AbortSignal,
  ): Promise<void> {
    const { task } = leased;
    for (let round = 0; ; round++) {
      const choices = await submitChoices(deps, gate, provider, task, requestWith);
      if (typeof choices === 'string') {
        await fail(task, choices);
        return;
      }
      const result = await submit(leased, provider, choices);
      // Parked for capacity, or the lease was lost before the call (which was then never made).
      if (result.kind !== 'outcome') return;
      const { outcome, choice } = result;
      if (choice.key && deps.keyPool) {
        const keyOut = await deps.keyPool.learn(choice.key, keyAnswerOf(outcome));
        if (keyOut && round < MAX_KEY_ROUNDS) continue;
      }
      await applyOutcome(leased, provider, outcome, 'submit', signal, choice.pool?.id, choice.key?.id);
      return;
    }
  }

  /** Works one leased task one step: submit, poll, or finish. Never throws. */
  return async function step(leased: LeasedTask, controller: AbortController): Promise<void> {
    const { task } = leased;
    try {
      if (clock.now() >= task.deadline_at) {
        if (await fail(task, deadlineMessage(task, options.taskDeadlineMs))) cancelUpstream(task);
        return;
      }
      const provider = providers.get(task.provider);
      if (!provider) {
        await fail(task, `Provider "${task.provider}" is not configured on this server`);
        return;
      }
      const refKeys = JSON.parse(leased.generation.ref_keys_json) as string[];
      const references = await decoding.load(task.account_id, refKeys, 'Reference image');
      const { mask_key: maskKey } = leased.generation;
      const masks = maskKey ? await decoding.load(task.account_id, [maskKey], 'Mask') : [];
      const unloadable = [references, masks].find((loaded) => typeof loaded === 'string');
      if (typeof references === 'string' || typeof masks === 'string') {
        await fail(task, String(unloadable));
        return;
      }
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(options.upstreamTimeoutMs)]);
      const requestWith = (apiKey: string | null) => buildRequest(leased, references, masks, apiKey, signal);
      if (task.upstream_id === null) {
        await submitStep(leased, provider, requestWith, signal);
      } else {
        const apiKey = await pollKeyOf(deps, provider, task);
        if (provider.requiresKey && !apiKey) {
          await fail(task, `No upstream key is configured for provider ${task.provider}`);
          return;
        }
        const request = requestWith(apiKey);
        const polled = await poll(leased, provider, { ...request, upstreamId: task.upstream_id });
        // Aborted by a stop or a lost lease (a render's wait left): a pending answer holds nothing to
        // keep, and the stop gives every lease back in one write (2,000 step writes took 16 s).
        if (controller.signal.aborted && polled.kind === 'outcome' && polled.outcome.kind === 'pending')
          return;
        if (polled.kind === 'outcome') await applyOutcome(leased, provider, polled.outcome, 'poll', signal);
      }
    } catch (error) {
      // A thrown error is a bug or an infrastructure fault (disk, database): retry, then give up.
      logger.error({ err: error, taskId: task.id }, 'task step failed');
      try {
        const attempts = task.attempts + 1;
        if (attempts >= options.maxAttempts) await fail(task, 'Internal error while processing the task');
        else
          await write(task, {
            attempts,
            next_run_at: Math.min(task.deadline_at, clock.now() + retryDelayMs(attempts, undefined)),
            lease_owner: null,
            lease_expires_at: null,
          });
      } catch (writeError) {
        logger.error(
          { err: writeError, taskId: task.id },
          'could not record the failure; the lease will expire',
        );
      }
    }
  };
}
