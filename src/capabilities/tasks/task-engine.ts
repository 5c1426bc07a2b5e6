import { isFinalStatus } from '../../base/domain/task-status.js';
import { leaseOwnerId, reclaimDeadLeases } from '../../infra/jobs/dead-lease-reclaim.js';
import { createLeaseLoop } from '../../infra/jobs/lease-loop.js';
import { type CapacityGate, createCapacityGate } from './capacity/capacity-gate.js';
import { removePartialFrames } from './partial-frames.js';
import type { TaskEngineDeps } from './task-engine-deps.js';
import { createLeaseKeeper } from './task-lease.js';
import { toTaskRecord } from './task-record.js';
import { createTaskStep } from './task-step.js';
import { traceTaskEnded } from './task-traces.js';
import { failTask, logTransition, observeTransition, writeLeased } from './task-writes.js';
import type { LeasedTask, TaskRow } from './tasks-repository.js';

export { pollDelayMs, retryDelayMs } from './retry-schedule.js';

/** What happened to a task submitted inline by the generate request. */
export type InlineSubmitResult =
  | { taskId: string; kind: 'accepted' }
  | { taskId: string; kind: 'deferred' }
  | { taskId: string; kind: 'failed'; message: string };

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

/** The error of a task its caller canceled (POST /api/v1/tasks/{id}/cancel). */
export const CANCELED = 'Canceled';

/** The error of a task an operator canceled (the console's queue, POST /api/admin/v1/queue/cancel). */
export const OPERATOR_CANCELED = 'Canceled by an operator';

/** Whether a failed task's error says it was canceled (by its caller or by an operator). */
export const isCanceledError = (error: string | null | undefined): boolean =>
  error === CANCELED || error === OPERATOR_CANCELED;

/** Tasks one transaction of a cancel of many ends (their hooks run in it). */
const CANCEL_BATCH = 200;

type WorkLoop = ReturnType<typeof createLeaseLoop<LeasedTask>>;

/** What the engine's operations share: its deps, its lease owner id, its loop and its wake-up. */
interface EngineParts {
  deps: TaskEngineDeps;
  owner: string;
  workLoop: WorkLoop;
  wake(): void;
}

/**
 * The task engine: the only writer of task state. It leases due tasks, submits them upstream,
 * polls pending ones with backoff, copies results into blob storage, and ends every task —
 * a task that cannot proceed ends `failed` with a message, never stuck.
 */
export function createTaskEngine(deps: TaskEngineDeps) {
  const owner = leaseOwnerId(deps.processOwner, deps.ids.next('wrk'));
  const { tasks, clock, logger, options } = deps;
  const keeper = createLeaseKeeper({ tasks, owner, clock, leaseMs: options.leaseMs, logger });
  const gate = createEngineGate(deps, owner, {
    onCalledBack: () => wake(),
    onRetryKnown: () => workLoop.wake(),
  });
  const workLoop = createEngineLoop(deps, owner, gate, async (leased, controller) => {
    const release = keeper.hold(leased.task.id, controller);
    try {
      await step(leased, controller);
    } finally {
      release();
    }
    // The step's writes are applied to `leased.task`: a task it ended needs no later look.
    return isFinalStatus(leased.task.status) ? 'ended' : undefined;
  });
  let stopListening: (() => void) | undefined;

  /** Wakes this worker's loop and every other node's: new or sooner-due tasks are in the store. */
  function wake(): void {
    workLoop.wake();
    deps.work?.announceWork();
  }

  const writer = { deps, owner };
  const step = createTaskStep({
    deps,
    write: (task, patch, withFinal) => writeLeased(writer, task, patch, withFinal),
    fail: (task, message, also) => failTask(writer, task, message, also),
    cancelUpstream: (task) => cancelUpstream(deps, task),
    gate,
  });
  const parts: EngineParts = { deps, owner, workLoop, wake };

  return {
    owner,

    /** Starts leasing and working due tasks (the worker role). */
    start(): void {
      stopListening ??= deps.work?.onWork(workLoop.wake);
      workLoop.start();
    },

    /** Wakes the workers (this node's and others'): new tasks were created in this process. */
    wake,

    /** Works freshly created tasks of a synchronous provider at once in this process (see `handOff`). */
    handOff: (accountId: string, taskIds: readonly string[]): Promise<void> =>
      handOff(parts, accountId, taskIds),

    /** Whether `count` fresh tasks can be worked here at once: then they are leased as they are created. */
    canTake: (count: number): boolean => workLoop.room() >= count,

    /** Submits freshly created tasks from the generate request itself (see `submitInline`). */
    submitInline: (taskIds: readonly string[]): Promise<InlineSubmitResult[]> => submitInline(parts, taskIds),

    /** Cancels an unfinished task of the account (see `cancelTask`). */
    cancel: (accountId: string, taskId: string): Promise<TaskRow | undefined> =>
      cancelTask(parts, accountId, taskId),

    /**
     * Cancels the unfinished tasks among `taskIds` whose status is one of `statuses`, of any
     * account (an operator's cancel): each ends failed with `error`, as a single cancel ends it.
     * Answers the ids it ended (those that ended otherwise meanwhile are left as they ended).
     */
    cancelMany: (
      taskIds: readonly string[],
      options: { error: string; statuses: readonly TaskRow['status'][] },
    ): Promise<string[]> => cancelTasks(parts, taskIds, options),

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

/** The engine's capacity gate: slots before upstream calls, parked tasks called back when room returns. */
function createEngineGate(
  deps: TaskEngineDeps,
  owner: string,
  calls: { onCalledBack(): void; onRetryKnown(): void },
): CapacityGate {
  return createCapacityGate({
    capacity: deps.capacity,
    clock: deps.clock,
    logger: deps.logger,
    owner,
    ...(deps.limitsOf ? { limitsOf: deps.limitsOf } : {}),
    metrics: deps.capacityMetrics,
    ...(deps.keyPool ? { keyLimitOf: deps.keyPool.limitOf, siblingsOf: deps.keyPool.siblingsOf } : {}),
    ...calls,
  });
}

/** The engine's lease loop: leases due tasks for `owner` and works each with `work`. */
function createEngineLoop(
  deps: TaskEngineDeps,
  owner: string,
  gate: CapacityGate,
  work: (leased: LeasedTask, controller: AbortController) => Promise<'ended' | undefined>,
): WorkLoop {
  const { tasks, clock, logger, options } = deps;
  return createLeaseLoop<LeasedTask>({
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
    work,
  });
}

/** Best-effort cancel of the task's upstream job (where the provider supports it), in the background. */
function cancelUpstream(deps: TaskEngineDeps, task: TaskRow): void {
  const provider = deps.providers.get(task.provider);
  const upstreamId = task.upstream_id;
  if (!upstreamId || !provider?.cancel) return;
  void (async () => {
    const apiKey = provider.requiresKey ? await deps.keys.resolve(task.account_id, provider.name) : null;
    await provider.cancel?.({ upstreamId, apiKey, signal: AbortSignal.timeout(30_000) });
  })().catch((error) => deps.logger.warn({ err: error, taskId: task.id }, 'upstream cancel failed'));
}

/**
 * Submits freshly created tasks from the generate request itself, for providers whose submit
 * is quick, so an upstream refusal can answer 500 upstream_error at once. Sync providers are
 * left to the engine ('deferred'). The request's tasks are submitted together, not one after
 * another: each waits for its create's answer (and its slot), so in a row a request of 4
 * images took 4 creates' time and a burst of requests went out at a quarter of its width.
 */
async function submitInline(
  { deps, owner, workLoop, wake }: EngineParts,
  taskIds: readonly string[],
): Promise<InlineSubmitResult[]> {
  const { tasks, providers, options } = deps;
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
}

/**
 * Hands freshly committed tasks straight to this process's worker (issue 48): leased to it in the
 * transaction that created them (when `canTake` said there was room), read back and worked at once,
 * instead of waking the loop to look for due work (a round: the sweep, the fair claim, the next due
 * time, and a lease write). The tasks and their lease are durable before this runs, so a crash leaves
 * them to whichever worker finds them when the lease expires; a task no longer held (canceled) is
 * left, and the loop woken.
 */
async function handOff(
  { deps, owner, workLoop, wake }: EngineParts,
  accountId: string,
  taskIds: readonly string[],
): Promise<void> {
  const held = await deps.tasks.heldIds(owner, accountId, taskIds);
  for (const item of held) void workLoop.track(item);
  if (held.length < taskIds.length) wake();
}

/**
 * Cancels an unfinished task: it ends `failed` with error "Canceled" (the spec's states stay the
 * only ones), an in-flight step in this process is aborted, and the upstream job is canceled
 * where the provider supports it. Returns the task as it now is, or undefined when the account
 * has no such task. A finished task is returned unchanged.
 */
async function cancelTask(
  { deps, workLoop }: EngineParts,
  accountId: string,
  taskId: string,
): Promise<TaskRow | undefined> {
  const { tasks } = deps;
  const row = await tasks.findForAccount(accountId, taskId);
  if (!row) return undefined;
  if (isFinalStatus(row.status)) return row;
  const canceled = await tasks.cancelUnfinished(taskId, CANCELED);
  workLoop.abort(taskId, new Error('canceled'));
  const after = (await tasks.findForAccount(accountId, taskId)) ?? row;
  if (canceled) afterCancel(deps, row, after);
  return after;
}

/** Cancels many tasks, a batch per transaction (see `cancelMany`); answers the ids it ended. */
async function cancelTasks(
  { deps, workLoop }: EngineParts,
  taskIds: readonly string[],
  { error, statuses }: { error: string; statuses: readonly TaskRow['status'][] },
): Promise<string[]> {
  const ended: string[] = [];
  for (let at = 0; at < taskIds.length; at += CANCEL_BATCH) {
    const batch = taskIds.slice(at, at + CANCEL_BATCH);
    for (const { before, after } of await deps.tasks.cancelUnfinishedMany(batch, error, statuses)) {
      workLoop.abort(after.id, new Error('canceled'));
      afterCancel(deps, before, after);
      ended.push(after.id);
    }
  }
  return ended;
}

/**
 * What follows a cancel's write: metrics and the log line of the change, the listeners told (event
 * streams, long-polls, webhooks, other nodes), the partial frames removed, and the upstream job
 * canceled where the provider supports it. A step in flight on another node finds its lease gone at
 * its next heartbeat or write and stops; its result is never stored or charged.
 */
function afterCancel(deps: TaskEngineDeps, before: TaskRow, after: TaskRow): void {
  observeTransition(deps, after, before.status);
  logTransition(deps.logger, after, before.status);
  deps.onTaskChanged?.({ accountId: after.account_id, record: toTaskRecord(after) });
  if (before.partial_frames > 0) void removePartialFrames(deps.blobs, after.id, before.partial_frames);
  traceTaskEnded(deps.tracing, after, deps.clock.now(), after.error === CANCELED ? 'caller' : 'operator');
  cancelUpstream(deps, before);
}
