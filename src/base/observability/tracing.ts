/**
 * Traces (issue 47): the port every capability writes spans through, and W3C trace context.
 * Off unless an OTLP endpoint is configured: then `noTracing` is used, whose `start` returns
 * undefined, so a call site costs one check (`span?.end()`) and nothing is allocated; the
 * OpenTelemetry SDK is loaded (dynamic import, otel-tracing.ts) only when tracing is on.
 *
 * Spans are parented explicitly by ids, never through an ambient context: a task's spans are
 * written by whichever node works on it, minutes or a crash apart, from the ids on its row.
 */

import type { TraceContext, Tracing, TracingConfig } from './trace-types.js';

export type {
  SpanAttributes,
  SpanOptions,
  TraceContext,
  TraceSpan,
  Tracing,
  TracingConfig,
} from './trace-types.js';

/** Tracing off: nothing is recorded, nothing allocated. */
export const noTracing: Tracing = {
  enabled: false,
  start: () => undefined,
  newSpanId: () => '',
  flush: async () => undefined,
  shutdown: async () => undefined,
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Reads a W3C `traceparent` header (Trace Context level 1): version `00` exactly as specified,
 * a later version by its first four fields; anything malformed, version `ff` or all-zero ids is
 * ignored (undefined), as the specification asks — the request then starts a trace of its own.
 */
export function parseTraceparent(header: string | string[] | undefined): TraceContext | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.length > 512) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** A span's context as a `traceparent` value. */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled === false ? '00' : '01'}`;
}

/**
 * The tracing of a process: `noTracing` without an endpoint, else the OpenTelemetry SDK exporting
 * over OTLP/HTTP (JSON), loaded now.
 */
export async function createTracing(config: TracingConfig | undefined): Promise<Tracing> {
  if (!config) return noTracing;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing(config);
}
