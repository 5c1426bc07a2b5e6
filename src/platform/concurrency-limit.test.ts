import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConcurrencyLimit } from './concurrency-limit.js';

test('no more than the limit run at once; the rest run in order, failures release their turn', async () => {
  const limit = createConcurrencyLimit(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const gates = Array.from({ length: 5 }, () => {
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    return { promise, resolve };
  });
  const runs = gates.map((gate, i) =>
    limit.run(async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(i);
      await gate.promise;
      running--;
      if (i === 1) throw new Error('boom');
      return i;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, [0, 1]);
  for (const gate of gates) gate.resolve();
  const results = await Promise.allSettled(runs);
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
  assert.equal(results[1]?.status, 'rejected');
  assert.deepEqual(
    results.filter((r) => r.status === 'fulfilled').map((r) => r.value),
    [0, 2, 3, 4],
  );
});

test('with a bounded queue, a call that finds it full is refused at once and the queue still drains', async () => {
  const limit = createConcurrencyLimit(1, { maxWaiting: 2, whenFull: () => new Error('full') });
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const admitted = [1, 2, 3].map((i) =>
    limit.run(async () => {
      await gate;
      return i;
    }),
  );
  assert.deepEqual(limit.load, { running: 1, waiting: 2 });
  await assert.rejects(
    limit.run(async () => 4),
    /full/,
  );
  open();
  assert.deepEqual(await Promise.all(admitted), [1, 2, 3]);
  assert.deepEqual(limit.load, { running: 0, waiting: 0 });
  assert.equal(await limit.run(async () => 5), 5);
});
