/**
 * A generation request's spans (issue 47): the request's own span (the child of the caller's
 * `traceparent`, else the root of a new trace) and its admission; its tasks join the trace through
 * the ids written on their rows (task-insert.ts), and the worker's spans hang under each task's.
 */

import { DomainError } from '../../base/domain/errors.js';
import { genAiProviderName } from '../../base/observability/gen-ai.js';
import { parseTraceparent, type TraceSpan, type Tracing } from '../../base/observability/tracing.js';
import type { Account } from '../../capabilities/accounts/index.js';
import type { TaskTrace } from '../../capabilities/tasks/index.js';
import type { GenerateRequest } from './generate-request.js';

/** The request's span, or undefined when tracing is off (or the caller's trace is not sampled). */
export function startGenerationSpan(
  tracing: Tracing | undefined,
  traceparent: string | undefined,
  account: Account,
  request: GenerateRequest,
  source: 'api' | 'web',
): TraceSpan | undefined {
  if (!tracing?.enabled) return undefined;
  return tracing.start(
    `generate ${request.model.id}`,
    parseTraceparent(traceparent),
    {
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.output.type': 'image',
      'gen_ai.request.model': request.model.id,
      'gen_ai.provider.name': genAiProviderName(request.model.provider),
      'gen_ai.request.choice.count': request.count,
      'atelier.account_id': account.id,
      'atelier.api_key_id': account.apiKey?.id,
      'atelier.source': source,
      'atelier.mode': request.mode,
      'atelier.image_size': request.imageSize,
      'atelier.aspect': request.aspect,
    },
    { kind: 'server' },
  );
}

/** Where the tasks of a traced request sit: under the request's span, each with a span of its own. */
export function taskTraceOf(
  tracing: Tracing | undefined,
  span: TraceSpan | undefined,
): TaskTrace | undefined {
  if (!tracing || !span) return undefined;
  return { traceId: span.traceId, parentSpanId: span.spanId, newSpanId: () => tracing.newSpanId() };
}

/** Ends the request's span: its generation and tasks, or the refusal that ended it. */
export function endGenerationSpan(
  span: TraceSpan | undefined,
  outcome: { generationId: string; taskIds: string[] } | { error: unknown },
): void {
  if (!span) return;
  if ('error' in outcome) {
    const { error } = outcome;
    span.fail(
      error instanceof Error ? error.message : String(error),
      error instanceof DomainError ? error.outcome : 'internal',
    );
  } else {
    span.set({
      'atelier.generation_id': outcome.generationId,
      'atelier.task_ids': outcome.taskIds.join(','),
    });
  }
  span.end();
}

/**
 * The admission's span around `admit` (the tier's quotas and the budgets, checked in the creating
 * transaction): the tier, the images and the reservation; a refusal fails it with its type.
 */
export async function traceAdmission<T>(
  tracing: Tracing | undefined,
  parent: TraceSpan | undefined,
  facts: { account: Account; images: number; reservedMicros: number },
  admit: () => Promise<T>,
): Promise<T> {
  const span =
    parent &&
    tracing?.start('admission', parent, {
      'atelier.tier': facts.account.tier,
      'atelier.images': facts.images,
      'atelier.budget.reserved_micros': facts.reservedMicros,
    });
  if (!span) return admit();
  try {
    const admitted = await admit();
    span.set({ 'atelier.admitted': true });
    return admitted;
  } catch (error) {
    span.set({ 'atelier.admitted': false });
    span.fail(
      error instanceof Error ? error.message : String(error),
      error instanceof DomainError ? error.outcome : 'internal',
    );
    throw error;
  } finally {
    span.end();
  }
}
