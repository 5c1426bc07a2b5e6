import { isFinalStatus } from '../../base/domain/task-status.js';
import { leaseOwnerId, reclaimDeadLeases } from '../../infra/jobs/dead-lease-reclaim.js';
import { createLeaseLoop } from '../../infra/jobs/lease-loop.js';
import { createCapacityGate } from './capacity/capacity-gate.js';
import { removePartialFrames } from './partial-frames.js';
import type { TaskEngineDeps } from './task-engine-deps.js';
import { createLeaseKeeper } from './task-lease.js';
import { sameTaskRecord, toTaskRecord } from './task-record.js';
import { createTaskStep } from './task-step.js';
import type { LeasedTask, TaskPatch, TaskRow } from './tasks-repository.js';

export { pollDelayMs, retryDelayMs } from './retry-schedule.js';

/** What happened to a task submitted inline by the generate request. */
export type InlineSubmitResult =
  | { taskId: string; kind: 'accepted' }
  | { taskId: string; kind: 'deferred' }
  | { taskId: string; kind: 'failed'; message: string };

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** The error of a canceled task. */
export const CANCELED = 'Canceled';

/**
 * The task engine: the only writer of task state. It leases due tasks, submits them upstream,
 * polls pending ones with backoff, copies results into blob storage, and ends every task —
 * a task that cannot proceed ends `failed` with a message, never stuck.
 */
export function createTaskEngine(deps: TaskEngineDeps) {
  const { tasks, providers, clock, logger, options } = deps;
  const owner = leaseOwnerId(deps.processOwner, deps.ids.next('wrk'));
  const keeper = createLeaseKeeper({ tasks, owner, clock, leaseMs: options.leaseMs, logger });
  const gate = createCapacityGate({
    capacity: deps.capacity,
    clock,
    logger,
    owner,
    ...(deps.limitsOf ? { limitsOf: deps.limitsOf } : {}),
    metrics: deps.capacityMetrics,
    ...(deps.keyPool ? { keyLimitOf: deps.keyPool.limitOf, siblingsOf: deps.keyPool.siblingsOf } : {}),
    onCalledBack: () => wake(),
    onRetryKnown: () => workLoop.wake(),
  });
  const workLoop = createLeaseLoop<LeasedTask>({
    name: 'task engine',
    clock,
    logger,
    concurrency: options.concurrency,
    idlePollMs: options.idlePollMs,
    leaseDue: (limit) => tasks.leaseDue(owner, options.leaseMs, limit),
    nextDueAt: async () => earliest(await tasks.nextDueAt(), gate.nextRetryAt()),
    // Parked tasks are called back here when their pool has room again (a hold ended, a dead
    // worker's slots freed); a release calls them back at once without waiting for a round.
    beforeRound: () => gate.sweep(),
    releaseAll: () => tasks.releaseAll(owner),
    beforeFirstRound: () =>
      reclaimDeadLeases({
        process: deps.processOwner,
        holders: tasks.leaseHolders,
        release: tasks.releaseAll,
        logger,
        what: 'task engine',
      }),
    idOf: (leased) => leased.task.id,
    work: (leased, controller) => {
      const release = keeper.hold(leased.task.id, controller);
      return step(leased, controller).finally(release);
    },
  });
  let stopListening: (() => void) | undefined;

  /** Wakes this worker's loop and every other node's: new or sooner-due tasks are in the store. */
  function wake(): void {
    workLoop.wake();
    deps.work?.announceWork();
  }

  async function write(task: TaskRow, patch: TaskPatch): Promise<boolean> {
    const ok = await tasks.updateLeased(task.id, owner, patch);
    if (ok) {
      const before = toTaskRecord(task);
      Object.assign(task, patch);
      observe(task, before.status);
      if (task.status !== before.status) logTransition(task, before.status);
      const record = toTaskRecord(task);
      // Listeners (event stream, long-poll, webhooks, other nodes) hear of visible changes only; a
      // new partial frame is one (for the OpenAI stream), carried beside the record.
      // Partial frames go with the task, before anyone hears that it ended.
      if (task.partial_frames > 0 && isFinalStatus(task.status) && !isFinalStatus(before.status))
        await removePartialFrames(deps.blobs, task.id, task.partial_frames);
      const frame = patch.partial_frames === undefined ? {} : { partialFrames: patch.partial_frames };
      if (!sameTaskRecord(before, record) || 'partialFrames' in frame)
        deps.onTaskChanged?.({ accountId: task.account_id, record, ...frame });
    } else logger.warn({ taskId: task.id }, 'lease lost, or the task was canceled; write skipped');
    return ok;
  }

  /** One line per status change, with the ids that join it to the request that made the task. */
  function logTransition(task: TaskRow, from: TaskRow['status']): void {
    logger.info(
      {
        taskId: task.id,
        generationId: task.generation_id,
        accountId: task.account_id,
        from,
        to: task.status,
        provider: task.provider,
        ...(task.status === 'failed' ? { error: task.error } : {}),
      },
      'task status changed',
    );
  }

  /**
   * Metrics of a write: leaving the queue (time queued: until the start upstream, or until the end
   * of a task that ended without starting, so every task is counted once whatever the timing) and
   * the final state (count, time to result).
   */
  function observe(task: TaskRow, statusBefore: TaskRow['status']): void {
    const { metrics } = deps;
    if (!metrics) return;
    if (statusBefore === 'queued' && task.status !== 'queued')
      metrics.taskQueuedSeconds.observe(
        { provider: task.provider },
        ((task.started_at ?? task.finished_at ?? clock.now()) - task.created_at) / 1000,
      );
    if (!isFinalStatus(task.status) || isFinalStatus(statusBefore)) return;
    const labels = { provider: task.provider, status: task.status };
    metrics.tasksFinished.inc({ ...labels, model: task.upstream_model });
    if (task.status === 'completed' && task.cost_micros)
      metrics.spendMicros.inc(
        { model: task.upstream_model, provider: task.provider },
        Number(task.cost_micros),
      );
    if (task.status === 'completed' && task.cost_absorbed_micros)
      metrics.absorbedMicros.inc(
        { model: task.upstream_model, provider: task.provider },
        Number(task.cost_absorbed_micros),
      );
    metrics.taskResultSeconds.observe(labels, ((task.finished_at ?? clock.now()) - task.created_at) / 1000);
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
      // Off the pool's line (its partial index holds waiting tasks only).
      capacity_pool: null,
    });
  }

  const step = createTaskStep({ deps, write, fail, cancelUpstream, gate });

  return {
    owner,

    /** Starts leasing and working due tasks (the worker role). */
    start(): void {
      stopListening ??= deps.work?.onWork(workLoop.wake);
      workLoop.start();
    },

    /** Wakes the workers (this node's and others'): new tasks were created in this process. */
    wake,

    /**
     * Submits freshly created tasks from the generate request itself, for providers whose submit
     * is quick, so an upstream refusal can answer 500 upstream_error at once. Sync providers are
     * left to the engine ('deferred'). The request's tasks are submitted together, not one after
     * another: each waits for its create's answer (and its slot), so in a row a request of 4
     * images took 4 creates' time and a burst of requests went out at a quarter of its width.
     */
    async submitInline(taskIds: readonly string[]): Promise<InlineSubmitResult[]> {
      const leased = await tasks.leaseIds(owner, options.leaseMs, taskIds);
      const results = await Promise.all(
        leased.map(async (item): Promise<InlineSubmitResult> => {
          const provider = providers.get(item.task.provider);
          if (!provider?.submitsInline) {
            await tasks.updateLeased(item.task.id, owner, { lease_owner: null, lease_expires_at: null });
            return { taskId: item.task.id, kind: 'deferred' };
          }
          await workLoop.track(item);
          const after = await tasks.findForAccount(item.task.account_id, item.task.id);
          return after?.status === 'failed'
            ? { taskId: item.task.id, kind: 'failed', message: after.error ?? '' }
            : { taskId: item.task.id, kind: 'accepted' };
        }),
      );
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
      if (isFinalStatus(row.status)) return row;
      const canceled = await tasks.cancelUnfinished(taskId, CANCELED);
      workLoop.abort(taskId, new Error('canceled'));
      const after = (await tasks.findForAccount(accountId, taskId)) ?? row;
      if (canceled) {
        observe(after, row.status);
        logTransition(after, row.status);
        deps.onTaskChanged?.({ accountId, record: toTaskRecord(after) });
        if (row.partial_frames > 0) void removePartialFrames(deps.blobs, taskId, row.partial_frames);
        cancelUpstream(row);
      }
      return after;
    },

    /**
     * Stops leasing, lets in-flight steps finish within `graceMs`, aborts the rest, and gives
     * back this worker's leases so a restart picks the tasks up at once.
     */
    async stop(graceMs = 5000): Promise<void> {
      stopListening?.();
      stopListening = undefined;
      await workLoop.stop(graceMs);
    },
  };
}

export type TaskEngine = ReturnType<typeof createTaskEngine>;
