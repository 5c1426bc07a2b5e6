import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { providerRequest } from '../../../test/fakes/providers/provider-request.js';
import { createCircuitBreaker, withCircuitBreaker } from './circuit-breaker.js';
import type { ImageProvider, SubmitOutcome } from './provider.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** A provider whose submit answers from a queue of outcomes (or throws for 'throw'). */
function scriptedProvider(outcomes: Array<SubmitOutcome | 'throw'>) {
  let calls = 0;
  const provider: ImageProvider = {
    name: 'gemini',
    requiresKey: true,
    submitsInline: false,
    pollIntervalMs: 1234,
    expectedDurationMs: () => 5000,
    async submit() {
      calls += 1;
      const next = outcomes.shift() ?? { kind: 'pending', upstreamId: 'x' };
      if (next === 'throw') throw new Error('adapter bug');
      return next;
    },
    async poll() {
      return { kind: 'pending', status: 'in_progress' };
    },
    async cancel() {},
  };
  return { provider, calls: () => calls };
}

const serverError: SubmitOutcome = {
  kind: 'failed',
  message: 'HTTP 500',
  retryable: true,
  cause: 'upstream_error',
};
const ok: SubmitOutcome = { kind: 'done', image: { url: 'https://example.test/x.png' } };

describe('circuit breaker', () => {
  test('opens after the threshold of consecutive failures and fails fast with "unavailable"', async () => {
    const clock = fakeClock();
    const { provider, calls } = scriptedProvider([serverError, serverError, serverError]);
    const wrapped = withCircuitBreaker(
      provider,
      createCircuitBreaker({ now: clock.now, failureThreshold: 3, openMs: 10_000 }),
    );
    for (let i = 0; i < 3; i++) assert.equal((await wrapped.submit(providerRequest())).kind, 'failed');
    assert.equal(wrapped.available(), false);
    const fast = await wrapped.submit(providerRequest());
    assert.equal(fast.kind, 'failed');
    assert.ok(fast.kind === 'failed');
    assert.match(fast.message, /provider gemini unavailable/);
    assert.equal(fast.retryable, true);
    assert.equal(fast.cause, 'circuit_open');
    assert.equal(fast.retryAfterMs, 10_000);
    assert.equal(calls(), 3, 'the upstream was not called while open');
    // What the operator console reads of it.
    assert.deepEqual(wrapped.circuit(), { state: 'open', consecutiveFailures: 3, msUntilProbe: 10_000 });
    clock.advance(4000);
    assert.equal(wrapped.circuit().msUntilProbe, 6000);
  });

  test('its report counts failures in a row, and a success clears them', async () => {
    const clock = fakeClock();
    const { provider } = scriptedProvider([serverError, serverError, ok]);
    const wrapped = withCircuitBreaker(provider, createCircuitBreaker({ now: clock.now }));
    assert.deepEqual(wrapped.circuit(), { state: 'closed', consecutiveFailures: 0, msUntilProbe: 0 });
    await wrapped.submit(providerRequest());
    await wrapped.submit(providerRequest());
    assert.deepEqual(wrapped.circuit(), { state: 'closed', consecutiveFailures: 2, msUntilProbe: 0 });
    await wrapped.submit(providerRequest());
    assert.equal(wrapped.circuit().consecutiveFailures, 0);
  });

  test('half-open: one probe at a time; its success closes the circuit', async () => {
    const clock = fakeClock();
    let release: (outcome: SubmitOutcome) => void = () => undefined;
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 1, openMs: 1000 });
    const provider: ImageProvider = {
      ...scriptedProvider([]).provider,
      submit: () => new Promise<SubmitOutcome>((resolve) => (release = resolve)),
    };
    breaker.recordFailure();
    assert.equal(breaker.state(), 'open');
    clock.advance(1000);
    assert.equal(breaker.state(), 'half_open');
    const wrapped = withCircuitBreaker(provider, breaker);
    assert.equal(wrapped.available(), true, 'a probe is due');
    const probe = wrapped.submit(providerRequest());
    assert.equal(wrapped.available(), false, 'the probe is in flight');
    const second = await wrapped.submit(providerRequest());
    assert.equal(second.kind === 'failed' && second.cause, 'circuit_open');
    release(ok);
    assert.equal((await probe).kind, 'done');
    assert.equal(breaker.state(), 'closed');
    assert.equal(wrapped.available(), true);
  });

  test('a failed probe opens the circuit for another openMs', async () => {
    const clock = fakeClock();
    const { provider } = scriptedProvider([serverError, serverError, ok]);
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 1, openMs: 1000 });
    const wrapped = withCircuitBreaker(provider, breaker);
    await wrapped.submit(providerRequest());
    assert.equal(breaker.state(), 'open');
    clock.advance(1000);
    await wrapped.submit(providerRequest());
    assert.equal(breaker.state(), 'open');
    assert.equal(breaker.msUntilProbe(), 1000);
    clock.advance(999);
    assert.equal(wrapped.available(), false);
    clock.advance(1);
    assert.equal((await wrapped.submit(providerRequest())).kind, 'done');
    assert.equal(breaker.state(), 'closed');
  });

  test('refusals, bad keys and quota do not open it (the upstream answered); a success resets the streak', async () => {
    const clock = fakeClock();
    const { provider } = scriptedProvider([
      serverError,
      { kind: 'failed', message: 'blocked', retryable: false, cause: 'blocked' },
      serverError,
      { kind: 'failed', message: 'bad key', retryable: false, cause: 'unauthorized' },
      { kind: 'failed', message: 'quota', retryable: true, cause: 'rate_limited' },
      serverError,
      ok,
      serverError,
    ]);
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 2, openMs: 1000 });
    const wrapped = withCircuitBreaker(provider, breaker);
    for (let i = 0; i < 8; i++) await wrapped.submit(providerRequest());
    assert.equal(breaker.state(), 'closed');
  });

  test('engine aborts are neutral; thrown adapter bugs count as failures and are rethrown', async () => {
    const clock = fakeClock();
    const canceled: SubmitOutcome = {
      kind: 'failed',
      message: 'aborted',
      retryable: true,
      cause: 'canceled',
    };
    const { provider } = scriptedProvider([serverError, canceled, canceled, 'throw']);
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 2, openMs: 1000 });
    const wrapped = withCircuitBreaker(provider, breaker);
    await wrapped.submit(providerRequest());
    await wrapped.submit(providerRequest());
    await wrapped.submit(providerRequest());
    assert.equal(breaker.state(), 'closed', 'one failure, then two neutral aborts');
    await assert.rejects(wrapped.submit(providerRequest()), /adapter bug/);
    assert.equal(breaker.state(), 'open');
  });

  test('failures without a cause count when retryable', async () => {
    const clock = fakeClock();
    const { provider } = scriptedProvider([{ kind: 'failed', message: 'x', retryable: true }]);
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 1, openMs: 1000 });
    await withCircuitBreaker(provider, breaker).submit(providerRequest());
    assert.equal(breaker.state(), 'open');
  });

  test('polls pass through while open, and the wrapper keeps the provider shape', async () => {
    const clock = fakeClock();
    const { provider } = scriptedProvider([]);
    const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 1, openMs: 1000 });
    breaker.recordFailure();
    const wrapped = withCircuitBreaker(provider, breaker);
    const polled = await wrapped.poll({ ...providerRequest(), upstreamId: 'abc' });
    assert.equal(polled.kind, 'pending');
    assert.equal(wrapped.name, 'gemini');
    assert.equal(wrapped.requiresKey, true);
    assert.equal(wrapped.submitsInline, false);
    assert.equal(wrapped.pollIntervalMs, 1234);
    assert.equal(wrapped.expectedDurationMs({ upstreamModel: 'm', imageSize: '1K' }), 5000);
    assert.equal(typeof wrapped.cancel, 'function');
  });

  test('a probe that never reports is presumed lost after probeTimeoutMs', () => {
    const clock = fakeClock();
    const breaker = createCircuitBreaker({
      now: clock.now,
      failureThreshold: 1,
      openMs: 1000,
      probeTimeoutMs: 5000,
    });
    breaker.recordFailure();
    clock.advance(1000);
    assert.equal(breaker.tryAcquire(), true);
    assert.equal(breaker.tryAcquire(), false);
    clock.advance(5000);
    assert.equal(breaker.tryAcquire(), true);
  });
});

test('calls admitted before the circuit opened and failing late do not keep it open', () => {
  const clock = fakeClock();
  const breaker = createCircuitBreaker({ now: clock.now, failureThreshold: 2, openMs: 30_000 });
  // Four calls in flight while closed; two failures open the circuit.
  for (let i = 0; i < 4; i++) assert.ok(breaker.tryAcquire());
  breaker.recordFailure();
  breaker.recordFailure();
  assert.equal(breaker.state(), 'open');
  // The other two fail 20 s later: old news, the probe is still due 30 s after the opening.
  clock.advance(20_000);
  breaker.recordFailure();
  breaker.recordFailure();
  assert.equal(breaker.msUntilProbe(), 10_000);
  clock.advance(10_000);
  assert.equal(breaker.state(), 'half_open');
  // A failed probe does re-open it for a full period.
  assert.ok(breaker.tryAcquire());
  breaker.recordFailure();
  assert.equal(breaker.msUntilProbe(), 30_000);
});

test('the change listener hears the circuit open once, with the last errors, and close after a probe', async () => {
  const clock = fakeClock();
  const failing = (n: number): SubmitOutcome => ({ ...serverError, message: `HTTP 500 #${n}` });
  const { provider } = scriptedProvider([failing(1), failing(2), failing(3), failing(4), failing(5), ok]);
  const changes: unknown[] = [];
  const wrapped = withCircuitBreaker(
    provider,
    createCircuitBreaker({ now: clock.now, failureThreshold: 4, openMs: 1000 }),
    (change) => changes.push(change),
  );
  for (let i = 0; i < 4; i++) await wrapped.submit(providerRequest());
  assert.deepEqual(changes, [
    {
      provider: 'gemini',
      state: 'open',
      consecutiveFailures: 4,
      lastErrors: ['HTTP 500 #2', 'HTTP 500 #3', 'HTTP 500 #4'],
    },
  ]);
  clock.advance(1000);
  await wrapped.submit(providerRequest()); // the probe fails: still the same outage, nothing new
  assert.equal(changes.length, 1);
  clock.advance(1000);
  await wrapped.submit(providerRequest()); // the probe succeeds
  assert.deepEqual(changes.at(-1), {
    provider: 'gemini',
    state: 'closed',
    consecutiveFailures: 0,
    lastErrors: ['HTTP 500 #3', 'HTTP 500 #4', 'HTTP 500 #5'],
  });
  assert.equal(changes.length, 2);
});
