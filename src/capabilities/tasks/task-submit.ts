import { markTask } from '../../base/observability/stage-timing.js';
import type { ImageProvider, ProviderRequest, SubmitOutcome } from '../providers/index.js';
import type { CapacityGate } from './capacity/capacity-gate.js';
import type { CapacityPool } from './capacity/capacity-pool.js';
import type { SubmitChoice } from './key-choice.js';
import type { StepContext } from './task-engine-deps.js';
import { endUpstreamSpan, startUpstreamSpan, traceCapacityWait } from './task-traces.js';
import type { LeasedTask, TaskPatch, TaskRow } from './tasks-repository.js';

/** What a submit came to: an upstream outcome (and the choice that got it), parked for capacity, or nothing (lease lost). */
export type SubmitResult =
  | {
      kind: 'outcome';
      outcome: SubmitOutcome;
      choice: SubmitChoice;
      startedAt: number;
      /**
       * A result's slot release, still running (the gate's release never throws): every write of
       * the task must wait for it, so the slot counts as live until the task lets go of its lease.
       * Absent when the slot was released before the answer came back (any other outcome).
       */
      released?: Promise<void>;
    }
  | { kind: 'parked' }
  | { kind: 'lost' };

/** Ramp steps a submit waits for in place before it parks, and the longest step it waits for. */
const RAMP_WAITS = 12;
const RAMP_WAIT_MS = 1000;

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

/** What a submit works with: the engine's deps, its guarded writes, and the capacity gate. */
type SubmitContext = Pick<StepContext, 'deps' | 'write'> & { gate: CapacityGate };

/**
 * The submit of a leased task: a slot on its capacity pool first (or the task parks and waits its
 * turn), then the upstream call, then the slot's release with what the answer taught the pool.
 */
export function createTaskSubmit(context: SubmitContext) {
  return (leased: LeasedTask, provider: ImageProvider, choices: SubmitChoice[]): Promise<SubmitResult> =>
    submit(context, leased, provider, choices);
}

/**
 * Submits with the first choice (a key and its pool) that has a slot; none has: the task parks on
 * the pool it already waited for, else on the first choice's, and waits its turn there.
 */
async function submit(
  context: SubmitContext,
  leased: LeasedTask,
  provider: ImageProvider,
  choices: SubmitChoice[],
): Promise<SubmitResult> {
  const { write, gate } = context;
  const { task } = leased;
  const [first] = choices;
  if (!first) throw new Error(`no submit choice for task ${task.id}`);
  if (!first.pool) {
    const startedAt = context.deps.clock.now();
    const outcome = await call(context, task, provider, first.request, leased.fresh === true);
    return outcome ? { kind: 'outcome', outcome, choice: first, startedAt } : { kind: 'lost' };
  }
  const slot = await slotOrWait(context, task, choices);
  if (!slot) {
    const parkOn = choices.find((choice) => choice.pool?.id === task.capacity_pool)?.pool ?? first.pool;
    const parked = await write(task, parkPatch(task, parkOn, context.deps.clock.now()));
    if (parked) await gate.afterPark(parkOn);
    return parked ? { kind: 'parked' } : { kind: 'lost' };
  }
  const { choice, pool } = slot;
  let outcome: SubmitOutcome | undefined;
  let released: Promise<void> | undefined;
  try {
    const waited = task.capacity_pool !== null;
    if (waited) {
      gate.waited(task, pool);
      traceCapacityWait(context.deps.tracing, task, pool.id, context.deps.clock.now());
      const cleared = await write(task, { waiting_for: null, capacity_pool: null, waiting_since: null });
      if (!cleared) return { kind: 'lost' };
    }
    const startedAt = context.deps.clock.now();
    outcome = await call(context, task, provider, choice.request, waited || leased.fresh === true);
    if (!outcome) return { kind: 'lost' };
    // A result's slot is released while the result is stored; the task's next write waits for it.
    if (outcome.kind === 'done') released = gate.release(pool, slot.callId, outcome);
    return { kind: 'outcome', outcome, choice, startedAt, ...(released ? { released } : {}) };
  } finally {
    // Before the task's write lets go of its lease: the slot is counted live until then.
    if (released === undefined) await gate.release(pool, slot.callId, outcome);
  }
}

/** The call, in its span when the task is traced; `checked` when a write just proved this worker holds the lease. */
async function call(
  context: SubmitContext,
  task: TaskRow,
  provider: ImageProvider,
  request: ProviderRequest,
  checked = false,
): Promise<SubmitOutcome | undefined> {
  const { tracing, clock } = context.deps;
  markTask(task.id, 'slot');
  const span = startUpstreamSpan(tracing, task, 'submit', clock.now());
  let outcome: SubmitOutcome | undefined;
  try {
    outcome = await (provider.submitsInline
      ? submitAsync(context, task, provider, request)
      : runSynchronously(context, task, provider, request, checked));
    markTask(task.id, 'upstream');
    return outcome;
  } finally {
    endUpstreamSpan(span, outcome, clock.now());
  }
}

/**
 * An asynchronous submit. Before the request leaves, the task is marked durably as "may have
 * been accepted": if this worker dies before the answer is recorded, whichever worker takes the
 * task over asks the provider to reconcile (adopt the job) instead of creating a second one.
 */
async function submitAsync(
  { write }: SubmitContext,
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
  { deps, write }: SubmitContext,
  task: TaskRow,
  provider: ImageProvider,
  request: ProviderRequest,
  checked: boolean,
): Promise<SubmitOutcome | undefined> {
  const { clock, options } = deps;
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

/**
 * A slot on the first of the choices' pools that has one (each asked in turn); with none, when a
 * climbing ramp grows if every pool asked is full only by its ramp.
 */
async function firstSlot(
  gate: CapacityGate,
  task: TaskRow,
  choices: SubmitChoice[],
): Promise<{ choice: SubmitChoice; pool: CapacityPool; callId: string } | { rampGrowsAt?: number }> {
  let rampGrowsAt: number | undefined;
  let ramping = true;
  for (const choice of choices) {
    if (!choice.pool) continue;
    const slot = await gate.acquire(choice.pool, task);
    if (slot.kind === 'granted') return { choice, pool: choice.pool, callId: slot.callId };
    ramping &&= slot.ramping === true && slot.retryAt !== undefined;
    if (slot.retryAt !== undefined) rampGrowsAt = Math.min(rampGrowsAt ?? slot.retryAt, slot.retryAt);
  }
  return ramping && rampGrowsAt !== undefined ? { rampGrowsAt } : {};
}

/**
 * A slot, waiting here while a fresh pool's ramp climbs (a step away each time, for at most
 * `RAMP_WAITS` steps): parking a burst's tasks for each step cost every task a park write, a
 * call-back and a new lease per step. Past that, or for any other wait, none.
 */
async function slotOrWait({ deps, gate }: SubmitContext, task: TaskRow, choices: SubmitChoice[]) {
  const { clock } = deps;
  // The step's signal (a stop, a lost lease): the task parks at once instead of waiting on.
  const signal = choices[0]?.request.signal;
  for (let step = 0; ; step++) {
    const found = await firstSlot(gate, task, choices);
    if ('callId' in found) return found;
    const at = found.rampGrowsAt;
    if (at === undefined || step >= RAMP_WAITS || at - clock.now() > RAMP_WAIT_MS || signal?.aborted)
      return undefined;
    await untilOrAborted(Math.max(0, at - clock.now()), signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts first. */
function untilOrAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
