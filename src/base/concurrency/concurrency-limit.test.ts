import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConcurrencyLimit, createFairConcurrencyLimit } from './concurrency-limit.js';

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

test('the fair limit serves waiting keys in turn, each key in its own order, and starves none', async () => {
  const limit = createFairConcurrencyLimit(1);
  const order: string[] = [];
  let release = () => {};
  const first = new Promise<void>((resolve) => {
    release = resolve;
  });
  const job = (name: string, gate?: Promise<void>) => async () => {
    order.push(name);
    await gate;
  };
  // A holds the only slot and queues four more; then B queues one and C two; then A one more.
  const runs = [limit.run('A', job('A0', first))];
  for (let i = 1; i <= 4; i++) runs.push(limit.run('A', job(`A${i}`)));
  runs.push(limit.run('B', job('B0')));
  runs.push(limit.run('C', job('C0')), limit.run('C', job('C1')));
  runs.push(limit.run('A', job('A5')));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['A0']);
  release();
  await Promise.all(runs);
  // B runs second (not sixth), C third; A's own calls keep their order and still all run.
  assert.deepEqual(order, ['A0', 'A1', 'B0', 'C0', 'A2', 'C1', 'A3', 'A4', 'A5']);
});

test('a waiter whose signal aborts leaves the line at once, and the others keep their turns', async () => {
  const limit = createFairConcurrencyLimit(1);
  const order: string[] = [];
  let release = () => {};
  const first = new Promise<void>((resolve) => {
    release = resolve;
  });
  const job = (name: string, gate?: Promise<void>) => async () => {
    order.push(name);
    await gate;
  };
  const leaving = new AbortController();
  const runs = [limit.run('A', job('A0', first)), limit.run('A', job('A1'))];
  const left = limit.run('A', job('A2'), leaving.signal);
  runs.push(limit.run('B', job('B0')));
  leaving.abort(new Error('stopping'));
  await assert.rejects(left, /stopping/);
  await assert.rejects(
    limit.run('C', job('C0'), leaving.signal),
    /stopping/,
    'an aborted signal does not queue',
  );
  assert.deepEqual(order, ['A0'], 'the slot stayed with its holder');
  release();
  await Promise.all(runs);
  assert.deepEqual(order, ['A0', 'A1', 'B0']);
  assert.equal(await limit.run('A', async () => 'free'), 'free', 'no slot was lost');
});
