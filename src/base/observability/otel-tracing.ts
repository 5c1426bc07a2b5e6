/**
 * Tracing on: the OpenTelemetry SDK (`@opentelemetry/sdk-trace`), batching spans to an OTLP/HTTP
 * collector in OTLP's JSON encoding. Imported only by `createTracing` when an endpoint is set, so
 * a node without one never loads the SDK.
 */
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import type {
  SpanAttributes,
  SpanOptions,
  TraceContext,
  TraceSpan,
  Tracing,
  TracingConfig,
} from './trace-types.js';

const KINDS = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
} as const;

/** Attributes without the undefined ones (OpenTelemetry drops them anyway, with a warning). */
function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (attributes)
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** The context a span is started in: its remote parent's, or none (a new trace). */
function parentContext(parent: TraceContext | undefined): Context {
  if (!parent) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.sampled === false ? TraceFlags.NONE : TraceFlags.SAMPLED,
    isRemote: true,
  });
}

class OtelSpan implements TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  constructor(private readonly span: Span) {
    const spanContext = span.spanContext();
    this.traceId = spanContext.traceId;
    this.spanId = spanContext.spanId;
  }
  set(attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes));
  }
  fail(message: string, type?: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    if (type !== undefined) this.span.setAttribute('error.type', type);
  }
  end(at?: number): void {
    this.span.end(at);
  }
}

/** The SDK's tracer provider over an OTLP/HTTP JSON exporter, behind the `Tracing` port. */
export function createOtelTracing(config: TracingConfig): Tracing {
  const random = new RandomIdGenerator();
  // A span started under a chosen id (a task's, known from its row) takes it; others a random one.
  let chosenSpanId: string | undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': config.serviceName,
      ...(config.serviceVersion ? { 'service.version': config.serviceVersion } : {}),
    }),
    idGenerator: {
      generateTraceId: () => random.generateTraceId(),
      generateSpanId: () => {
        const id = chosenSpanId ?? random.generateSpanId();
        chosenSpanId = undefined;
        return id;
      },
    },
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.endpoint, headers: config.headers }),
        // Spans leave within a second; the queue's bound (2,048) drops spans rather than grow.
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  const tracer = provider.getTracer('atelier');
  return {
    enabled: true,
    start(
      name: string,
      parent: TraceContext | undefined,
      attributes?: SpanAttributes,
      options: SpanOptions = {},
    ) {
      if (parent?.sampled === false) return undefined;
      chosenSpanId = options.spanId;
      const span = tracer.startSpan(
        name,
        {
          kind: KINDS[options.kind ?? 'internal'],
          attributes: defined(attributes),
          ...(options.startAt === undefined ? {} : { startTime: options.startAt }),
        },
        parentContext(parent),
      );
      chosenSpanId = undefined;
      return span.isRecording() ? new OtelSpan(span) : undefined;
    },
    newSpanId: () => random.generateSpanId(),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
