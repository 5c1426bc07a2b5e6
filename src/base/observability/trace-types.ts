/** The tracing port's types (tracing.ts), apart so the SDK's side (otel-tracing.ts) imports no cycle. */

/** A span's place in a trace: the W3C `traceparent`'s ids. */
export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  spanId: string;
  /** The caller's sampled flag (absent: sampled). */
  sampled?: boolean;
}

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  /** When the span began, ms since the epoch (default: now). */
  startAt?: number;
  kind?: 'internal' | 'server' | 'client' | 'consumer';
  /** The span's own id, chosen beforehand (a task's span: its id is on the task's row from the start). */
  spanId?: string;
}

/** An open span. */
export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  set(attributes: SpanAttributes): void;
  /** Marks the span failed: status ERROR with `message`, `error.type` = `type`. */
  fail(message: string, type?: string): void;
  /** Ends the span at `at` (ms since the epoch; default now). */
  end(at?: number): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /**
   * Starts a span, the child of `parent` (a new trace without one). Undefined when tracing is off
   * or the parent was not sampled: callers write `span?.…`.
   */
  start(
    name: string,
    parent: TraceContext | undefined,
    attributes?: SpanAttributes,
    options?: SpanOptions,
  ): TraceSpan | undefined;
  /** A new random span id (16 hex), for a span started later under a chosen id. */
  newSpanId(): string;
  /** Sends what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The trace settings read from OpenTelemetry's standard environment variables. */
export interface TracingConfig {
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  endpoint: string;
  /** `OTEL_SERVICE_NAME`, else `atelier`. */
  serviceName: string;
  /** Extra headers (`OTEL_EXPORTER_OTLP_TRACES_HEADERS` / `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2`). */
  headers: Record<string, string>;
  /** The service's version, for the resource. */
  serviceVersion?: string;
}
