import type { TracingConfig } from '../../base/observability/tracing.js';

/** `k=v,k2=v2` (OTLP's headers variables; values percent-decoded), malformed entries skipped. */
function headersOf(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of (text ?? '').split(',')) {
    const at = entry.indexOf('=');
    if (at <= 0) continue;
    try {
      headers[decodeURIComponent(entry.slice(0, at).trim())] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      // A malformed escape: the entry is skipped, as the SDK does.
    }
  }
  return headers;
}

const set = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/**
 * Tracing's settings from OpenTelemetry's standard variables (docs/operations.md, "Tracing"): on
 * when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the URL spans are posted to, as is) or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (a base: `/v1/traces` is added) is set, unless
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`; off otherwise.
 */
export function tracingConfigOf(env: Record<string, string | undefined>): TracingConfig | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  if (set(env.OTEL_TRACES_EXPORTER)?.toLowerCase() === 'none') return undefined;
  const traces = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const endpoint = traces ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (endpoint === undefined) return undefined;
  if (!/^https?:\/\//i.test(endpoint))
    throw new Error(
      `Invalid configuration:\n  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http(s) URL (got ${endpoint})`,
    );
  return {
    endpoint,
    serviceName: set(env.OTEL_SERVICE_NAME) ?? 'atelier',
    headers: {
      ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
  };
}
