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
