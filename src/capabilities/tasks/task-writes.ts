import type { Logger } from 'pino';
import { isFinalStatus } from '../../base/domain/task-status.js';
import { removePartialFrames } from './partial-frames.js';
import type { TaskEngineDeps } from './task-engine-deps.js';
import type { OnTaskFinished } from './task-finish.js';
import { sameTaskRecord, toTaskRecord } from './task-record.js';
import { traceTaskEnded } from './task-traces.js';
import type { TaskPatch, TaskRow } from './tasks-repository.js';

/** What the engine's writes need: the store, this worker's lease owner id, listeners and metrics. */
export interface TaskWriter {
  deps: Pick<
    TaskEngineDeps,
    'tasks' | 'blobs' | 'clock' | 'logger' | 'metrics' | 'onTaskChanged' | 'tracing'
  >;
  owner: string;
}

/**
 * Writes a leased task if this worker still holds its lease (false otherwise), then tells the
 * listeners of a visible change and counts and logs a change of status.
 */
export async function writeLeased(
  writer: TaskWriter,
  task: TaskRow,
  patch: TaskPatch,
  withFinal?: OnTaskFinished,
): Promise<boolean> {
  const { deps } = writer;
  const ok = await deps.tasks.updateLeased(task.id, writer.owner, patch, withFinal);
  if (ok) {
    const before = toTaskRecord(task);
    Object.assign(task, patch);
    observeTransition(deps, task, before.status);
    if (task.status !== before.status) logTransition(deps.logger, task, before.status);
    const record = toTaskRecord(task);
    // Listeners (event stream, long-poll, webhooks, other nodes) hear of visible changes only; a
    // new partial frame is one (for the OpenAI stream), carried beside the record.
    // Partial frames go with the task, before anyone hears that it ended.
    if (isFinalStatus(task.status) && !isFinalStatus(before.status)) {
      if (task.partial_frames > 0) await removePartialFrames(deps.blobs, task.id, task.partial_frames);
      traceTaskEnded(deps.tracing, task, deps.clock.now());
    }
    const frame = patch.partial_frames === undefined ? {} : { partialFrames: patch.partial_frames };
    if (!sameTaskRecord(before, record) || 'partialFrames' in frame)
      deps.onTaskChanged?.({ accountId: task.account_id, record, ...frame });
  } else deps.logger.warn({ taskId: task.id }, 'lease lost, or the task was canceled; write skipped');
  return ok;
}

/** Ends a leased task `failed` with `message` (a guarded write like any other). */
export function failTask(
  writer: TaskWriter,
  task: TaskRow,
  message: string,
  also: TaskPatch = {},
): Promise<boolean> {
  return writeLeased(writer, task, {
    ...also,
    status: 'failed',
    error: message,
    finished_at: writer.deps.clock.now(),
    lease_owner: null,
    lease_expires_at: null,
    // Off the pool's line (its partial index holds waiting tasks only).
    capacity_pool: null,
  });
}

/** One line per status change, with the ids that join it to the request that made the task. */
export function logTransition(logger: Logger, task: TaskRow, from: TaskRow['status']): void {
  logger.info(
    {
      taskId: task.id,
      generationId: task.generation_id,
      accountId: task.account_id,
      from,
      to: task.status,
      provider: task.provider,
      ...(task.status === 'failed' ? { error: task.error } : {}),
      // The trace the task belongs to (tracing on): the log line and the spans meet on it.
      ...(task.trace_id ? { traceId: task.trace_id } : {}),
    },
    'task status changed',
  );
}

/**
 * Metrics of a write: leaving the queue (time queued: until the start upstream, or until the end
 * of a task that ended without starting, so every task is counted once whatever the timing) and
 * the final state (count, time to result).
 */
export function observeTransition(
  { metrics, clock }: Pick<TaskEngineDeps, 'metrics' | 'clock'>,
  task: TaskRow,
  statusBefore: TaskRow['status'],
): void {
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
