/**
 * A task's spans (issue 47), written by whichever node works on it: its own span (from its creation
 * to its end, under the id chosen when it was created, so the spans below are its children on every
 * node), the wait for upstream capacity, each upstream call (submit or poll) and the copy of its
 * result into storage. The trace's ids travel on the task's row (migration 0077); a row without
 * them, or tracing off, costs one check and writes nothing.
 */
import { genAiProviderName } from '../../base/observability/gen-ai.js';
import type { TraceContext, TraceSpan, Tracing } from '../../base/observability/tracing.js';
import type { Db } from '../../infra/store/database.js';
import type { PollOutcome, SubmitOutcome } from '../providers/index.js';
import { isRateLimit } from './capacity/capacity-gate.js';
import { routeIdOfRow } from './task-route.js';
import type { TaskRow } from './tasks-repository.js';

type TracedRow = Pick<TaskRow, 'trace_id' | 'trace_span_id'>;

/** The task's span as the parent of the spans below it; undefined when the task is not traced. */
export function taskSpanOf(task: TracedRow): TraceContext | undefined {
  return task.trace_id && task.trace_span_id
    ? { traceId: task.trace_id, spanId: task.trace_span_id }
    : undefined;
}

/**
 * The task's span, written once when it ends (the write that ended it is made once, by one node).
 * A cancel ends it too (`canceledBy`: its caller or an operator): `atelier.task.canceled`, not an
 * error (the task did what it was asked).
 */
export function traceTaskEnded(
  tracing: Tracing | undefined,
  task: TaskRow,
  now: number,
  canceledBy?: 'caller' | 'operator',
): void {
  if (!tracing?.enabled || !task.trace_id || !task.trace_span_id || !task.trace_parent_span_id) return;
  const span = tracing.start(
    'task',
    { traceId: task.trace_id, spanId: task.trace_parent_span_id },
    {
      'atelier.task_id': task.id,
      'atelier.generation_id': task.generation_id,
      'atelier.task.status': task.status,
      'atelier.route': routeIdOfRow(task),
      'gen_ai.provider.name': genAiProviderName(task.provider),
      'gen_ai.request.model': task.upstream_model,
      'atelier.upstream.refusals': task.upstream_refusals,
      'atelier.upstream.submits': task.submits,
      'atelier.cost_micros': task.cost_micros ?? undefined,
    },
    { startAt: task.created_at, spanId: task.trace_span_id, kind: 'consumer' },
  );
  if (canceledBy) span?.set({ 'atelier.task.canceled': true, 'atelier.task.canceled_by': canceledBy });
  else if (task.status === 'failed') span?.fail(task.error ?? 'failed', 'task_failed');
  span?.end(task.finished_at ?? now);
}

/** The wait for a slot on the task's upstream pool, from when it parked until it got one. */
export function traceCapacityWait(
  tracing: Tracing | undefined,
  task: TaskRow,
  pool: string,
  now: number,
): void {
  const parent = tracing?.enabled ? taskSpanOf(task) : undefined;
  if (!parent || task.waiting_since === null) return;
  const span = tracing?.start(
    'wait upstream_capacity',
    parent,
    { 'atelier.task_id': task.id, 'atelier.capacity_pool': pool },
    { startAt: task.waiting_since },
  );
  span?.end(now);
}

/** A span for one upstream call of the task (`submit` or `poll`), started now; undefined when not traced. */
export function startUpstreamSpan(
  tracing: Tracing | undefined,
  task: TaskRow,
  phase: 'submit' | 'poll',
  startAt: number,
): TraceSpan | undefined {
  const parent = tracing?.enabled ? taskSpanOf(task) : undefined;
  if (!parent) return undefined;
  const attempt = (task.submits ?? 0) + (task.upstream_refusals ?? 0) + (phase === 'submit' ? 1 : 0);
  return tracing?.start(
    phase === 'submit' ? `generate_content ${task.upstream_model}` : `poll ${task.upstream_model}`,
    parent,
    {
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.provider.name': genAiProviderName(task.provider),
      'gen_ai.request.model': task.upstream_model,
      'gen_ai.output.type': 'image',
      'atelier.task_id': task.id,
      'atelier.route': routeIdOfRow(task),
      'atelier.upstream.phase': phase,
      'atelier.upstream.attempt': attempt,
      'atelier.upstream.polls': phase === 'poll' ? task.polls + 1 : undefined,
    },
    { kind: 'client', startAt },
  );
}

/** Ends an upstream call's span with what the upstream answered: done, pending, or a failure and its kind. */
export function endUpstreamSpan(
  span: TraceSpan | undefined,
  outcome: SubmitOutcome | PollOutcome | undefined,
  now: number,
): void {
  if (!span) return;
  if (!outcome) span.set({ 'atelier.upstream.status': 'not_sent' });
  else if (outcome.kind === 'failed') {
    const refused = isRateLimit(outcome);
    span.set({
      'atelier.upstream.status': refused ? 'refused' : 'failed',
      'atelier.upstream.refused': refused,
      'atelier.upstream.retryable': outcome.retryable,
      'atelier.upstream.retry_after_ms': outcome.retryAfterMs,
    });
    span.fail(outcome.message, outcome.cause ?? (refused ? 'rate_limited' : 'upstream_error'));
  } else {
    span.set({ 'atelier.upstream.status': outcome.kind, 'atelier.upstream.refused': false });
    if (outcome.kind === 'done' && outcome.usage)
      span.set({
        'gen_ai.usage.input_tokens': outcome.usage.input_tokens,
        'gen_ai.usage.output_tokens': outcome.usage.output_tokens,
      });
  }
  span.end(now);
}

/** The copy of a result (and its first renditions, where made) into storage, around `store`. */
export async function traceResultStore<T>(
  tracing: Tracing | undefined,
  task: TaskRow,
  clock: { now(): number },
  store: () => Promise<T>,
): Promise<T> {
  const parent = tracing?.enabled ? taskSpanOf(task) : undefined;
  const span =
    parent &&
    tracing?.start('store result', parent, { 'atelier.task_id': task.id }, { startAt: clock.now() });
  if (!span) return store();
  try {
    const stored = await store();
    span.set({
      'atelier.result.bytes': task.bytes ?? undefined,
      'atelier.result.content_type': task.content_type ?? undefined,
    });
    return stored;
  } catch (error) {
    span.fail(error instanceof Error ? error.message : String(error), 'storage');
    throw error;
  } finally {
    span.end(clock.now());
  }
}

/** The span of a task, read from its row (a webhook delivery joins it); undefined when not traced. */
export async function readTaskSpan(db: Db, taskId: string): Promise<TraceContext | undefined> {
  const row = await db
    .selectFrom('tasks')
    .select(['trace_id', 'trace_span_id'])
    .where('id', '=', taskId)
    .executeTakeFirst();
  return row && taskSpanOf(row);
}
