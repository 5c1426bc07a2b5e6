import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tracingConfigOf } from './tracing-config.js';

test('tracing: on with an OTLP endpoint (OpenTelemetry’s variables), off otherwise', () => {
  assert.equal(tracingConfigOf({}), undefined);
  assert.deepEqual(tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }), {
    endpoint: 'http://collector:4318/v1/traces',
    serviceName: 'atelier',
    headers: {},
  });
  const both = tracingConfigOf({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
    OTEL_SERVICE_NAME: 'atelier-eu',
    OTEL_EXPORTER_OTLP_HEADERS: 'x-team=a,authorization=Basic%20abc',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=b',
  });
  assert.deepEqual(both, {
    endpoint: 'https://traces.example/ingest',
    serviceName: 'atelier-eu',
    headers: { 'x-team': 'b', authorization: 'Basic abc' },
  });
  assert.equal(
    tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    undefined,
  );
  assert.equal(
    tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    undefined,
  );
  assert.throws(() => tracingConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /http\(s\) URL/);
});
