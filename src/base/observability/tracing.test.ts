import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTracing, formatTraceparent, noTracing, parseTraceparent } from './tracing.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

test('traceparent: W3C Trace Context level 1, read or ignored as the specification says', () => {
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), {
    traceId: TRACE,
    spanId: SPAN,
    sampled: true,
  });
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-00`), {
    traceId: TRACE,
    spanId: SPAN,
    sampled: false,
  });
  // A later version is read by its first four fields; version 00 with more is malformed.
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01-extra`)?.traceId, TRACE);
  for (const bad of [
    undefined,
    '',
    `00-${TRACE}-${SPAN}-01-extra`,
    `ff-${TRACE}-${SPAN}-01`,
    `00-${'0'.repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}`,
    'garbage',
  ])
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  assert.equal(formatTraceparent({ traceId: TRACE, spanId: SPAN }), `00-${TRACE}-${SPAN}-01`);
});

test('tracing off: the no-op port, no span, nothing allocated per call', async () => {
  assert.equal(await createTracing(undefined), noTracing);
  assert.equal(noTracing.enabled, false);
  assert.equal(noTracing.start('x', { traceId: TRACE, spanId: SPAN }), undefined);
});
