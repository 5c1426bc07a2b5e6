import type { ImageProvider, ProviderRequest, SubmitOutcome } from '../providers/provider.js';
import type { CapacityGate } from './capacity/capacity-gate.js';
import type { CapacityPool } from './capacity/capacity-pool.js';
import type { StepContext } from './task-engine-deps.js';
import type { LeasedTask, TaskPatch, TaskRow } from './tasks-repository.js';

/** What a submit came to: an upstream outcome, parked for capacity, or nothing (lease lost). */
export type SubmitResult =
  | { kind: 'outcome'; outcome: SubmitOutcome }
  | { kind: 'parked' }
  | { kind: 'lost' };

/** The patch that parks a task on its pool until a slot frees (or its deadline comes). */
export function parkPatch(task: TaskRow, pool: CapacityPool, now: number): TaskPatch {
  return {
    waiting_for: 'upstream_capacity',
    capacity_pool: pool.id,
    waiting_since: task.waiting_since ?? now,
    // Called back by a release or the loop's sweep; the deadline is the backstop that ends it.
    next_run_at: task.deadline_at,
    lease_owner: null,
    lease_expires_at: null,
  };
}

/**
 * The submit of a leased task: a slot on its capacity pool first (or the task parks and waits its
 * turn), then the upstream call, then the slot's release with what the answer taught the pool.
 */
export function createTaskSubmit({
  deps,
  write,
  gate,
}: Pick<StepContext, 'deps' | 'write'> & { gate: CapacityGate }) {
  const { clock, options } = deps;

  /**
   * An asynchronous submit. Before the request leaves, the task is marked durably as "may have
   * been accepted": if this worker dies before the answer is recorded, whichever worker takes the
   * task over asks the provider to reconcile (adopt the job) instead of creating a second one.
   */
  async function submitAsync(
    task: TaskRow,
    provider: ImageProvider,
    request: ProviderRequest,
  ): Promise<SubmitOutcome | undefined> {
    if (task.needs_reconcile !== 1 && !(await write(task, { needs_reconcile: 1 }))) return undefined;
    return provider.submit(request);
  }

  /**
   * A synchronous upstream call: the task reads in_progress once the call has run for a moment
   * (a refusal answers at once and leaves a never-started task queued), with progress estimated
   * from elapsed time (the lease is kept by the engine's heartbeat, as for every step).
   */
  async function runSynchronously(
    task: TaskRow,
    provider: ImageProvider,
    request: ProviderRequest,
    checked: boolean,
  ): Promise<SubmitOutcome | undefined> {
    // The write is the lease check: a worker that lost the task never makes the call.
    if (!checked && !(await write(task, {}))) return undefined;
    const startedAt = clock.now();
    let progress = task.progress;
    const expected = Math.max(1000, provider.expectedDurationMs(request));
    const ticker = setInterval(
      () => {
        const estimate = Math.min(95, Math.floor(((clock.now() - startedAt) / expected) * 95));
        const patch: TaskPatch = {};
        if (task.status !== 'in_progress') {
          patch.status = 'in_progress';
          if (task.started_at === null) patch.started_at = startedAt;
        }
        if (estimate > progress) patch.progress = progress = estimate;
        if (Object.keys(patch).length > 0) void write(task, patch).catch(() => undefined);
      },
      Math.max(250, Math.min(options.leaseMs / 3, expected / 20)),
    );
    try {
      return await provider.submit(request);
    } finally {
      clearInterval(ticker);
    }
  }

  /** The call; `checked` when a write just proved this worker holds the lease. */
  async function call(task: TaskRow, provider: ImageProvider, request: ProviderRequest, checked = false) {
    return provider.submitsInline
      ? submitAsync(task, provider, request)
      : runSynchronously(task, provider, request, checked);
  }

  return async function submit(
    leased: LeasedTask,
    provider: ImageProvider,
    request: ProviderRequest,
    pool: CapacityPool | undefined,
  ): Promise<SubmitResult> {
    const { task } = leased;
    if (!pool) {
      const outcome = await call(task, provider, request);
      return outcome ? { kind: 'outcome', outcome } : { kind: 'lost' };
    }
    const slot = await gate.acquire(pool, task);
    if (slot.kind === 'wait') {
      const parked = await write(task, parkPatch(task, pool, clock.now()));
      if (parked) await gate.afterPark(pool);
      return parked ? { kind: 'parked' } : { kind: 'lost' };
    }
    let outcome: SubmitOutcome | undefined;
    try {
      const waited = task.capacity_pool !== null;
      if (waited) {
        gate.waited(task, pool);
        const cleared = await write(task, { waiting_for: null, capacity_pool: null, waiting_since: null });
        if (!cleared) return { kind: 'lost' };
      }
      outcome = await call(task, provider, request, waited);
      return outcome ? { kind: 'outcome', outcome } : { kind: 'lost' };
    } finally {
      // Before the task's write lets go of its lease: the slot is counted live until then.
      await gate.release(pool, slot.callId, outcome);
    }
  };
}
