import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLoginThrottle } from './login-throttle.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const options = { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 8000, forgetAfterMs: 60_000, maxKeys: 3 };

test('the first failures are free, then each one doubles the wait up to the cap', () => {
  const clock = fakeClock();
  const throttle = createLoginThrottle(clock, options);
  assert.deepEqual(
    [1, 2, 3].map(() => throttle.recordFailure('a')),
    [0, 0, 0],
  );
  assert.equal(throttle.retryAfterMs('a'), 0);
  assert.equal(throttle.recordFailure('a'), 1000);
  assert.equal(throttle.retryAfterMs('a'), 1000);
  clock.advance(400);
  assert.equal(throttle.retryAfterMs('a'), 600);
  clock.advance(600);
  assert.equal(throttle.retryAfterMs('a'), 0);
  assert.deepEqual(
    [5, 6, 7, 8].map(() => throttle.recordFailure('a')),
    [2000, 4000, 8000, 8000],
  );
});

test('keys are independent; success clears one; records are forgotten after a quiet period', () => {
  const clock = fakeClock();
  const throttle = createLoginThrottle(clock, options);
  for (let i = 0; i < 4; i++) throttle.recordFailure('a');
  for (let i = 0; i < 4; i++) throttle.recordFailure('b');
  assert.ok(throttle.retryAfterMs('a') > 0);
  throttle.recordSuccess('a');
  assert.equal(throttle.retryAfterMs('a'), 0);
  assert.equal(throttle.recordFailure('a'), 0, 'counting starts over after a success');
  assert.ok(throttle.retryAfterMs('b') > 0);
  clock.advance(60_001);
  assert.equal(throttle.retryAfterMs('b'), 0);
  assert.equal(throttle.recordFailure('b'), 0, 'forgotten: counting starts over');
});

test('memory is bounded: beyond maxKeys the least recently failed key is dropped', () => {
  const clock = fakeClock();
  const throttle = createLoginThrottle(clock, options);
  for (const key of ['a', 'b', 'c']) for (let i = 0; i < 4; i++) throttle.recordFailure(key);
  throttle.recordFailure('d');
  assert.equal(throttle.retryAfterMs('a'), 0, 'a was dropped');
  assert.ok(throttle.retryAfterMs('b') > 0);
  assert.ok(throttle.retryAfterMs('c') > 0);
});
