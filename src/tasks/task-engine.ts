import type { Logger } from 'pino';
import sharp from 'sharp';
import type { UpstreamKeyResolver } from '../accounts/accounts-service.js';
import type { AssetsRepository } from '../assets/assets-repository.js';
import type { BlobStore } from '../blobs/blob-store.js';
import { extensionOf } from '../blobs/blob-store.js';
import { pixelSize } from '../catalog/catalog.js';
import { toDecodableImage } from '../images/decodable-image.js';
import type { Clock } from '../platform/clock.js';
import type { IdGenerator } from '../platform/ids.js';
import { createLeaseLoop } from '../platform/lease-loop.js';
import type {
  GenerationMode,
  ImageProvider,
  ImageSize,
  PollOutcome,
  ProviderImage,
  ProviderRequest,
  ReferenceImage,
  SubmitOutcome,
} from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { TaskChange } from './task-events.js';
import { toTaskRecord } from './task-record.js';
import type { LeasedTask, TaskPatch, TaskRow, TasksRepository } from './tasks-repository.js';

export interface TaskEngineOptions {
  /** Most tasks worked on at once by this process. */
  concurrency: number;
  /** How long a lease lasts; sync calls renew it while they run. */
  leaseMs: number;
  /** How long the idle loop sleeps before looking for due tasks again (other nodes' tasks). */
  idlePollMs: number;
  /** Consecutive retryable failures before a task fails for good. */
  maxAttempts: number;
  /** Time limit of one upstream call. */
  upstreamTimeoutMs: number;
  /** The whole-task deadline, in minutes for messages. */
  taskDeadlineMs: number;
}

export interface TaskEngineDeps {
  tasks: TasksRepository;
  assets: AssetsRepository;
  providers: ProviderRegistry;
  keys: UpstreamKeyResolver;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Downloads an upstream's result URL (through the safe fetcher). */
  downloadImage(url: string, signal: AbortSignal): Promise<Buffer>;
  /** Public URL of a blob key. */
  blobUrl(key: string): string;
  /** Called after every task write with the new record, so listeners (event stream, long-poll) can react. */
  onTaskChanged?(change: TaskChange): void;
  options: TaskEngineOptions;
}

/** What happened to a task submitted inline by the generate request. */
export type InlineSubmitResult =
  | { taskId: string; kind: 'accepted' }
  | { taskId: string; kind: 'deferred' }
  | { taskId: string; kind: 'failed'; message: string };

/** The error of a canceled task. */
export const CANCELED = 'Canceled';

const RETRY_BASE_MS = 1000;
const RETRY_CAP_MS = 60_000;

/** Exponential backoff with full jitter, never sooner than the upstream's Retry-After. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return Math.max(retryAfterMs ?? 0, Math.round(random() * ceiling));
}

/** How long to wait before polling a pending upstream job again. */
export function pollDelayMs(
  provider: Pick<ImageProvider, 'pollIntervalMs'>,
  polls: number,
  random = Math.random,
): number {
  if (provider.pollIntervalMs !== undefined) return provider.pollIntervalMs;
  const base = Math.min(5000, 1000 * 1.5 ** polls);
  return Math.round(base * (0.8 + random() * 0.4));
}

const contentTypeOfFormat: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/**
 * The task engine: the only writer of task state. It leases due tasks, submits them upstream,
 * polls pending ones with backoff, copies results into blob storage, and ends every task —
 * a task that cannot proceed ends `failed` with a message, never stuck.
 */
export function createTaskEngine(deps: TaskEngineDeps) {
  const { tasks, providers, clock, logger, options } = deps;
  const owner = deps.ids.next('wrk');
  const workLoop = createLeaseLoop<LeasedTask>({
    name: 'task engine',
    clock,
    logger,
    concurrency: options.concurrency,
    idlePollMs: options.idlePollMs,
    leaseDue: (limit) => tasks.leaseDue(owner, options.leaseMs, limit),
    nextDueAt: () => tasks.nextDueAt(),
    releaseAll: () => tasks.releaseAll(owner),
    idOf: (leased) => leased.task.id,
    work: (leased, controller) => step(leased, controller),
  });
  const wake = workLoop.wake;

  async function write(task: TaskRow, patch: TaskPatch): Promise<boolean> {
    const ok = await tasks.updateLeased(task.id, owner, patch);
    if (ok) {
      Object.assign(task, patch);
      deps.onTaskChanged?.({ accountId: task.account_id, record: toTaskRecord(task) });
    } else logger.warn({ taskId: task.id }, 'lease lost, or the task was canceled; write skipped');
    return ok;
  }

  /** Best-effort cancel of the task's upstream job (where the provider supports it), in the background. */
  function cancelUpstream(task: TaskRow): void {
    const provider = providers.get(task.provider);
    const upstreamId = task.upstream_id;
    if (!upstreamId || !provider?.cancel) return;
    void (async () => {
      const apiKey = provider.requiresKey ? await deps.keys.resolve(task.account_id, provider.name) : null;
      await provider.cancel?.({ upstreamId, apiKey, signal: AbortSignal.timeout(30_000) });
    })().catch((error) => logger.warn({ err: error, taskId: task.id }, 'upstream cancel failed'));
  }

  function fail(task: TaskRow, message: string): Promise<boolean> {
    const now = clock.now();
    return write(task, {
      status: 'failed',
      error: message,
      finished_at: now,
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  async function loadReferences(refKeys: string[]): Promise<ReferenceImage[] | string> {
    const references: ReferenceImage[] = [];
    for (const key of refKeys) {
      const bytes = await deps.blobs.get(key);
      if (!bytes) return `Reference image ${key} is no longer stored`;
      references.push(await toDecodableImage(bytes));
    }
    return references;
  }

  /** Copies a result into blob storage and records it as an asset, then marks the task completed. */
  async function rehostResult(task: TaskRow, image: ProviderImage, signal: AbortSignal): Promise<void> {
    const bytes = 'bytes' in image ? image.bytes : await deps.downloadImage(image.url, signal);
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
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
  ): Promise<void> {
    const { task } = leased;
    const now = clock.now();
    switch (outcome.kind) {
      case 'done':
        await rehostResult(task, outcome.image, signal);
        return;
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
        if (phase === 'submit' && 'upstreamId' in outcome) patch.upstream_id = outcome.upstreamId;
        if (status === 'in_progress' && task.started_at === null) patch.started_at = now;
        await write(task, patch);
        return;
      }
      case 'failed': {
        const attempts = task.attempts + 1;
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
          // Remembered durably, so whichever worker retries asks the provider to reconcile.
          ...(phase === 'submit' && outcome.maybeAccepted ? { needs_reconcile: 1 } : {}),
          next_run_at: now + retryDelayMs(attempts, outcome.retryAfterMs),
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

  function buildRequest(
    leased: LeasedTask,
    references: ReferenceImage[],
    apiKey: string | null,
    signal: AbortSignal,
  ): ProviderRequest {
    const { task, generation } = leased;
    const imageSize = generation.image_size as ImageSize;
    const { width, height } = pixelSize(generation.aspect, imageSize);
    return {
      taskId: task.id,
      upstreamModel: task.upstream_model,
      mode: generation.mode as GenerationMode,
      prompt: generation.prompt,
      aspect: generation.aspect,
      imageSize,
      width,
      height,
      index: task.idx,
      references,
      apiKey,
      signal,
      reconcile: task.needs_reconcile === 1,
    };
  }

  /** Works one leased task one step: submit, poll, or finish. Never throws. */
  async function step(leased: LeasedTask, controller: AbortController): Promise<void> {
    const { task } = leased;
    try {
      if (clock.now() >= task.deadline_at) {
        const message = `Task timed out: no result within ${Math.round(options.taskDeadlineMs / 60000)} minutes`;
        if (await fail(task, message)) cancelUpstream(task);
        return;
      }
      const provider = providers.get(task.provider);
      if (!provider) {
        await fail(task, `Provider "${task.provider}" is not configured on this server`);
        return;
      }
      const apiKey = provider.requiresKey ? await deps.keys.resolve(task.account_id, task.provider) : null;
      if (provider.requiresKey && !apiKey) {
        await fail(task, `No upstream key is configured for provider ${task.provider}`);
        return;
      }
      const references = await loadReferences(JSON.parse(leased.generation.ref_keys_json) as string[]);
      if (typeof references === 'string') {
        await fail(task, references);
        return;
      }
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(options.upstreamTimeoutMs)]);
      const request = buildRequest(leased, references, apiKey, signal);
      if (task.upstream_id === null) {
        const outcome = provider.submitsInline
          ? await provider.submit(request)
          : await runSynchronously(leased, provider, request);
        await applyOutcome(leased, provider, outcome, 'submit', signal);
      } else {
        const outcome = await provider.poll({ ...request, upstreamId: task.upstream_id });
        await applyOutcome(leased, provider, outcome, 'poll', signal);
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
            next_run_at: clock.now() + retryDelayMs(attempts, undefined),
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
  }

  /**
   * A synchronous upstream call: the task reads in_progress while it runs, with progress estimated
   * from elapsed time, and the lease is renewed so no other worker takes the task meanwhile.
   */
  async function runSynchronously(
    leased: LeasedTask,
    provider: ImageProvider,
    request: ProviderRequest,
  ): Promise<SubmitOutcome> {
    const { task } = leased;
    const startedAt = clock.now();
    let progress = task.progress;
    await write(task, {
      status: 'in_progress',
      started_at: task.started_at ?? startedAt,
      lease_expires_at: startedAt + options.leaseMs,
    });
    task.status = 'in_progress';
    const expected = Math.max(1000, provider.expectedDurationMs(request));
    const heartbeat = setInterval(
      () => {
        const now = clock.now();
        progress = Math.max(progress, Math.min(95, Math.floor(((now - startedAt) / expected) * 95)));
        void write(task, { progress, lease_expires_at: now + options.leaseMs }).catch(() => undefined);
        task.progress = progress;
      },
      Math.max(250, Math.min(options.leaseMs / 3, expected / 20)),
    );
    try {
      return await provider.submit(request);
    } finally {
      clearInterval(heartbeat);
    }
  }

  return {
    owner,

    /** Starts leasing and working due tasks (the worker role). */
    start(): void {
      workLoop.start();
    },

    /** Wakes the loop: new tasks were created in this process. */
    wake,

    /**
     * Submits freshly created tasks from the generate request itself, for providers whose submit
     * is quick, so an upstream refusal can answer 500 upstream_error at once. Sync providers are
     * left to the engine ('deferred').
     */
    async submitInline(taskIds: readonly string[]): Promise<InlineSubmitResult[]> {
      const leased = await tasks.leaseIds(owner, options.leaseMs, taskIds);
      const results: InlineSubmitResult[] = [];
      for (const item of leased) {
        const provider = providers.get(item.task.provider);
        if (!provider?.submitsInline) {
          await tasks.updateLeased(item.task.id, owner, { lease_owner: null, lease_expires_at: null });
          results.push({ taskId: item.task.id, kind: 'deferred' });
          continue;
        }
        await workLoop.track(item);
        const after = await tasks.findForAccount(item.task.account_id, item.task.id);
        if (after?.status === 'failed')
          results.push({ taskId: item.task.id, kind: 'failed', message: after.error ?? '' });
        else results.push({ taskId: item.task.id, kind: 'accepted' });
      }
      wake();
      return results;
    },

    /**
     * Cancels an unfinished task: it ends `failed` with error "Canceled" (the spec's states stay the
     * only ones), an in-flight step in this process is aborted, and the upstream job is canceled
     * where the provider supports it. Returns the task as it now is, or undefined when the account
     * has no such task. A finished task is returned unchanged.
     */
    async cancel(accountId: string, taskId: string): Promise<TaskRow | undefined> {
      const row = await tasks.findForAccount(accountId, taskId);
      if (!row) return undefined;
      if (row.status === 'completed' || row.status === 'failed') return row;
      const canceled = await tasks.cancelUnfinished(taskId, CANCELED);
      workLoop.abort(taskId, new Error('canceled'));
      const after = (await tasks.findForAccount(accountId, taskId)) ?? row;
      if (canceled) {
        deps.onTaskChanged?.({ accountId, record: toTaskRecord(after) });
        cancelUpstream(row);
      }
      return after;
    },

    /**
     * Stops leasing, lets in-flight steps finish within `graceMs`, aborts the rest, and gives
     * back this worker's leases so a restart picks the tasks up at once.
     */
    async stop(graceMs = 5000): Promise<void> {
      await workLoop.stop(graceMs);
    },
  };
}

export type TaskEngine = ReturnType<typeof createTaskEngine>;
